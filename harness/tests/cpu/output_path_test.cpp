// The output-path rule (harness/cli/output_path.hpp) as each command that writes a file meets it:
// missing folders created, a trailing separator naming a folder, an output that is one of the
// command's inputs refused by identity (hostile_classes_test.cpp's class 2).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

ProcessOutcome run_cli(const std::vector<std::string>& args) {
    std::vector<std::string> argv{PINBENCH_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    Subprocess p(argv, {});
    return p.wait(std::chrono::seconds(120));
}

// A small real results file to replay: one run of the committed H200 smoke run.
const std::string kRun = "quick-overhead/cudaMallocHost/64MiB/x1/g1";
std::string source_results() { return std::string(PINBENCH_SOURCE_DIR) + "/results/h200-smoke/results.json"; }

std::vector<std::string> replay_to(const std::string& from, const std::string& out) {
    return {"run", "--backend", "replay", "--from", from, "--only", kRun, "-o", out, "--no-summary"};
}

class OutputPath : public ::testing::Test {
protected:
    OutputPath() : dir_("pinbench_output_path") {}
    std::string file(const std::string& name) const { return dir_.file(name); }
    // s.json: a copy of the source, the input the tests try to overwrite.
    std::string input_copy() const {
        const std::string s = file("s.json");
        fs::copy_file(source_results(), s);
        return s;
    }
    static std::string sep() { return std::string(1, static_cast<char>(fs::path::preferred_separator)); }

    testing_support::TempDir dir_;
};

TEST_F(OutputPath, RunCreatesMissingFolders) {
    const std::string out = file("new") + sep() + "deeper" + sep() + "quick.json";
    const auto r = run_cli(replay_to(source_results(), out));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(fs::is_regular_file(out)) << r.output;
}

TEST_F(OutputPath, RunWithATrailingSeparatorWritesInsideTheFolderUnderTheDefaultName) {
    for (const std::string& folder : {file("absent") + "/", file("absent2") + sep()}) {
        const auto r = run_cli(replay_to(source_results(), folder));
        EXPECT_EQ(r.exit_code, 0) << r.output;
        EXPECT_TRUE(fs::is_regular_file(folder + "pinbench-results.json")) << folder << "\n" << r.output;
    }
}

TEST_F(OutputPath, ATrailingSeparatorAfterAFileIsRefusedAndTheFileKept) {
    const std::string s = input_copy();
    const std::string other = file("other.json");
    fs::copy_file(s, other);
    const std::string before = read_file(other);
    const auto r = run_cli(replay_to(s, other + "/"));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("names a folder"), std::string::npos) << r.output;
    EXPECT_EQ(read_file(other), before);
}

TEST_F(OutputPath, RunFromAFileIntoTheSameFileIsRefusedByIdentity) {
    const std::string s = input_copy();
    const std::string before = read_file(s);
    std::vector<std::string> spellings{s, dir_.path().string() + sep() + "." + sep() + "s.json"};
    fs::create_hard_link(s, file("hard.json"));
    spellings.push_back(file("hard.json"));
#ifndef _WIN32  // symbolic links need a privilege on Windows
    fs::create_symlink(s, file("link.json"));
    spellings.push_back(file("link.json"));
#endif
    for (const auto& out : spellings) {
        const auto r = run_cli(replay_to(s, out));
        EXPECT_EQ(r.exit_code, 2) << out << "\n" << r.output;
        EXPECT_NE(r.output.find("is the input"), std::string::npos) << r.output;
        EXPECT_EQ(read_file(s), before) << out << " overwrote the input";
    }
}

TEST_F(OutputPath, RunIntoItsScenarioFileIsRefused) {
    const std::string scenario = file("quick.yaml");
    fs::copy_file(std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml", scenario);
    const std::string before = read_file(scenario);
    const auto r = run_cli({"run", scenario, "-o", scenario, "--no-summary"});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(read_file(scenario), before);
}

TEST_F(OutputPath, ResultsUpgradeFollowsTheRule) {
    const std::string s = input_copy();
    const std::string before = read_file(s);
    auto r = run_cli({"results", "upgrade", s, "-o", s});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_EQ(read_file(s), before);
    const std::string folder = file("up") + sep() + "to" + sep();
    r = run_cli({"results", "upgrade", s, "-o", folder});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(fs::is_regular_file(folder + "s.json")) << r.output;
    r = run_cli({"results", "upgrade", s, "-o", file("a") + sep() + "b.json"});
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(fs::is_regular_file(file("a") + sep() + "b.json")) << r.output;
}

TEST_F(OutputPath, TraceNeverWritesOverTheProgramItRuns) {
    const std::string program = input_copy();
    const std::string before = read_file(program);
    const auto r = run_cli({"trace", "-o", program, "--", program});
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("is the input"), std::string::npos) << r.output;
    EXPECT_EQ(read_file(program), before);
}

// A command that ends without writing its output removes the folders it made for it, and only
// those: `run -o out/x.json` refused (here: a bad replay source) left an empty `out/`.
TEST_F(OutputPath, ARunThatWritesNothingLeavesNoFolderItMade) {
    const std::string bad = file("bad.json");
    write_file_atomically(bad, "{\"schema_version\": 5}\n");
    fs::create_directories(file("kept"));
    for (const std::string& out :
         {file("made") + sep() + "deeper" + sep() + "x.json", file("made") + sep() + "deeper" + sep(),
          file("kept") + sep() + "x.json"}) {
        const auto r = run_cli(replay_to(bad, out));
        EXPECT_EQ(r.exit_code, 2) << out << "\n" << r.output;
        EXPECT_FALSE(fs::exists(file("made"))) << out;
    }
    EXPECT_TRUE(fs::is_directory(file("kept"))) << "a folder it did not make stays";
    // Written: the folders stay.
    const std::string out = file("made") + sep() + "deeper" + sep() + "x.json";
    const auto r = run_cli(replay_to(source_results(), out));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_TRUE(fs::is_regular_file(out)) << r.output;
}

TEST_F(OutputPath, DoctorCreatesTheBundlesFolder) {
    const std::string folder = file("bundle") + sep() + "here" + sep();
    const auto r = run_cli({"doctor", "--bundle", folder, "--control-size", "16MiB"});
    EXPECT_NE(r.exit_code, 2) << r.output;
    EXPECT_TRUE(fs::is_regular_file(folder + "pinbench-doctor.json")) << r.output;
}

}  // namespace
}  // namespace pinbench
