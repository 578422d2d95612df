// The CLI as a user meets it: help, plan, exit codes.
#include <gtest/gtest.h>

#include <filesystem>

#include "pinbench/subprocess.hpp"

namespace pinbench {
namespace {

ProcessOutcome run_cli(const std::vector<std::string>& args) {
    std::vector<std::string> argv{PINBENCH_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    Subprocess p(argv, {});
    return p.wait(std::chrono::seconds(60));
}

TEST(Cli, HelpListsTheSubcommandsAndExitsZero) {
    const auto out = run_cli({"--help"});
    EXPECT_EQ(out.exit_code, 0);
    for (const char* cmd : {"plan", "run", "doctor"}) EXPECT_NE(out.output.find(cmd), std::string::npos) << cmd;
    EXPECT_EQ(out.output.find("__child"), std::string::npos) << "the internal subcommand stays hidden";
}

TEST(Cli, PlanPrintsTheQuickScenarioWithoutAGpu) {
    const auto out = run_cli({"plan", std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml"});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_NE(out.output.find("quick-overhead/cudaMallocHost/64MiB/x1/g1"), std::string::npos) << out.output;
}

TEST(Cli, MissingScenarioFileIsBadInput) {
    const auto out = run_cli({"plan", "/nonexistent/scenario.yaml"});
    EXPECT_EQ(out.exit_code, 2) << out.output;
}

TEST(Cli, UnknownOptionIsBadInput) {
    const auto out = run_cli({"run", "--no-such-option"});
    EXPECT_EQ(out.exit_code, 2) << out.output;
}

TEST(Cli, ReplayOptionsWithoutReplayBackendAreBadInput) {
    const auto out = run_cli({"run", std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml", "--script",
                              std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml"});
    EXPECT_EQ(out.exit_code, 2) << out.output;
}

TEST(Cli, RunWithoutAGpuSaysSoAndExitsWithInfrastructureFailure) {
    if (std::filesystem::exists("/dev/nvidiactl")) GTEST_SKIP() << "a GPU driver is present; this test is for machines without";
    const auto results = std::filesystem::temp_directory_path() / "pinbench-cli-nogpu.json";
    const auto out = run_cli({"run", std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml", "-o", results.string()});
    EXPECT_EQ(out.exit_code, 3) << out.output;
    EXPECT_NE(out.output.find("no CUDA device"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("replay"), std::string::npos) << out.output;
    std::filesystem::remove(results);
}

}  // namespace
}  // namespace pinbench
