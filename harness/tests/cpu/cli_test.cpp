// The CLI as a user meets it: help, plan, exit codes.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "test_paths.hpp"

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
    for (const char* cmd : {"plan", "run", "doctor"})
        EXPECT_NE(out.output.find(cmd), std::string::npos) << cmd;
    EXPECT_EQ(out.output.find("__child"), std::string::npos) << "the internal subcommands stay hidden";
    EXPECT_EQ(out.output.find("__worker"), std::string::npos) << "the internal subcommands stay hidden";
}

// `pinbench budget --help` names --held-only and what it leaves out (docs/budget.md).
TEST(Cli, BudgetHelpNamesHeldOnly) {
    const auto out = run_cli({"budget", "--help"});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_NE(out.output.find("--held-only"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("the largest single pin is not measured"), std::string::npos) << out.output;
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
    if (std::filesystem::exists("/dev/nvidiactl"))
        GTEST_SKIP() << "a GPU driver is present; this test is for machines without";
    const auto results = std::filesystem::temp_directory_path() / "pinbench-cli-nogpu.json";
    const auto out =
        run_cli({"run", std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml", "-o", results.string()});
    EXPECT_EQ(out.exit_code, 3) << out.output;
    EXPECT_NE(out.output.find("no CUDA device"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("replay"), std::string::npos) << out.output;
    std::filesystem::remove(results);
}

// `run --resume FILE` alone measures from the scenario file the partial run recorded.
TEST(Cli, ResumeWithoutAScenarioUsesThePartialFilesScenarioPath) {
    nlohmann::json j = nlohmann::json::parse(
        read_file(std::string(PINBENCH_SOURCE_DIR) + "/results/h200-kinds-nightly/results.json"));
    j["complete"] = false;
    j["scenario"]["path"] = "/nonexistent/recorded-scenario.yaml";
    const auto partial = std::filesystem::temp_directory_path() / "pinbench-cli-partial.json";
    write_file_atomically(partial.string(), j.dump());
    const auto out = run_cli({"run", "--resume", partial.string(), "-o", partial.string() + ".out"});
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find("/nonexistent/recorded-scenario.yaml"), std::string::npos) << out.output;
    EXPECT_EQ(out.output.find("FILE is required"), std::string::npos) << out.output;
    std::filesystem::remove(partial);
}

// A partial file written by the cuda backend resumes against the same scenario file: its
// counts read back from JSON (unsigned) equal the ones parsed again (signed). On the GPU
// machine this was refused as "scenario.scenarios[0].count[0] differs".
TEST(Cli, ResumeOfACudaPartialFileAcceptsTheUnchangedScenario) {
    if (std::filesystem::exists("/dev/nvidiactl"))
        GTEST_SKIP() << "a GPU driver is present; this test is for machines without";
    const auto partial = std::filesystem::temp_directory_path() / "pinbench-cli-cuda-partial.json";
    const auto first =
        run_cli({"run", std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml", "-o", partial.string()});
    ASSERT_EQ(first.exit_code, 3) << first.output;  // no CUDA device: the file says complete: false
    if (!std::filesystem::exists(partial)) GTEST_SKIP() << "the run stopped before writing a results file";
    const auto out = run_cli({"run", "--resume", partial.string(), "-o", partial.string() + ".out"});
    EXPECT_EQ(out.exit_code, 3) << out.output;
    EXPECT_EQ(out.output.find("differs"), std::string::npos) << out.output;
    EXPECT_NE(out.output.find("no CUDA device"), std::string::npos) << out.output;
    std::filesystem::remove(partial);
    std::filesystem::remove(partial.string() + ".out");
}

TEST(Cli, StoreAddFilesRealResultsUnderTheirKeyAndNamesABadFile) {
    const auto dir = std::filesystem::temp_directory_path() / "pinbench-cli-store";
    std::filesystem::remove_all(dir);
    const std::string real = std::string(PINBENCH_SOURCE_DIR) + "/results/h200-quick/results.json";
    const std::string bad = std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml";
    const auto out = run_cli({"store", "add", real, bad, "--store", dir.string()});
    EXPECT_EQ(out.exit_code, 2) << "a bad file is bad input\n" << out.output;
    EXPECT_NE(out.output.find("stored: real/linux/linux/nvidia-h200/1gpu/580.159.04/"), std::string::npos)
        << out.output;
    EXPECT_NE(out.output.find("quick.yaml"), std::string::npos) << "the bad file is named\n" << out.output;
    const auto again = run_cli({"store", "add", real, "--store", dir.string()});
    EXPECT_EQ(again.exit_code, 0) << again.output;
    EXPECT_NE(again.output.find("already stored"), std::string::npos) << again.output;
    std::filesystem::remove_all(dir);
}

// `pinbench store upgrade`: one line per rewritten night, the count, exit 0; again, nothing to do.
// (A store of nights stored before `store add` upgraded: one such night put back by hand.)
TEST(Cli, StoreUpgradeRewritesAnOlderNightAndSaysSo) {
    const auto dir = std::filesystem::temp_directory_path() / "pinbench-cli-store-upgrade";
    std::filesystem::remove_all(dir);
    const std::string real = std::string(PINBENCH_SOURCE_DIR) + "/results/h200-quick/results.json";
    ASSERT_EQ(run_cli({"store", "add", real, "--store", dir.string()}).exit_code, 0);
    const auto current = run_cli({"store", "upgrade", "--store", dir.string()});
    EXPECT_EQ(current.exit_code, 0) << current.output;
    EXPECT_NE(
        current.output.find("0 stored file(s) rewritten in results schema version 5; 1 were in it already"),
        std::string::npos)
        << "store add stored the current version\n"
        << current.output;
    const auto missing = run_cli({"store", "upgrade", "--store", (dir / "none").string()});
    EXPECT_EQ(missing.exit_code, 2) << missing.output;
    std::filesystem::remove_all(dir);
}

TEST(Cli, RunWithStorePutsReplayedResultsInTheReplayNamespace) {
    const auto dir = std::filesystem::temp_directory_path() / "pinbench-cli-store-replay";
    const auto results = std::filesystem::temp_directory_path() / "pinbench-cli-replayed.json";
    std::filesystem::remove_all(dir);
    const auto out = run_cli({"run", "--backend", "replay", "--from",
                              std::string(PINBENCH_SOURCE_DIR) + "/results/h200-quick/results.json", "--only",
                              "quick-count/*", "-o", results.string(), "--store", dir.string()});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_NE(out.output.find("stored: replay/linux/"), std::string::npos) << out.output;
    EXPECT_FALSE(std::filesystem::exists(dir / "real")) << "replayed data never becomes a real baseline";
    std::filesystem::remove_all(dir);
    std::filesystem::remove(results);
}

// A committed version 2 file of every kind: the upgrade gives each metric, the kinds' own
// included, the samples of its repeats (n of them), and keeps the stored summary; a workers
// context read with the workspace under its own name (results_upgrade.hpp).
TEST(Cli, ResultsUpgradeWritesEveryMetricsSamples) {
    const std::string in = std::string(PINBENCH_SOURCE_DIR) + "/results/h200-kinds-smoke/results.json";
    const auto out_path = std::filesystem::temp_directory_path() / "pinbench-cli-upgraded.json";
    const auto out = run_cli({"results", "upgrade", in, "-o", out_path.string()});
    ASSERT_EQ(out.exit_code, 0) << out.output;
    const auto before = nlohmann::json::parse(read_file(in));
    const auto after = nlohmann::json::parse(read_file(out_path.string()));
    EXPECT_EQ(before.at("schema_version"), 2);
    EXPECT_EQ(after.at("schema_version"), 5);
    std::size_t metrics = 0;
    std::set<std::string> kinds;
    for (std::size_t i = 0; i < before.at("runs").size(); ++i) {
        for (const auto& [name, m] : before["runs"][i].at("metrics").items()) {
            const std::string context = "workers.context_per_worker.";
            const std::string now = name.starts_with(context) ? "workers.context_and_workspace_per_worker." +
                                                                    name.substr(context.size())
                                                              : name;
            EXPECT_EQ(after["runs"][i]["metrics"].contains(name), now == name) << name;
            const auto& up = after["runs"][i]["metrics"].at(now);
            ASSERT_TRUE(up.at("samples").is_array()) << name;
            EXPECT_EQ(up.at("samples").size(), m.at("n").get<std::size_t>()) << name;
            EXPECT_EQ(up.at("median"), m.at("median")) << name;
            kinds.insert(before["runs"][i]["plan"].at("kind").get<std::string>());
            ++metrics;
        }
    }
    EXPECT_EQ(metrics, 266u);  // every metric of the file (pinbench results upgrade counts the same)
    EXPECT_EQ(kinds.size(), 9u) << "kind metrics, not only the overhead ones";
    std::filesystem::remove(out_path);
}

}  // namespace
}  // namespace pinbench
