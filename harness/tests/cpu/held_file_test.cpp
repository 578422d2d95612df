// A lock file only a living process holds (platform/held_file.hpp), and the rule it carries:
// two `pinbench run` with the same -o never both write it (run/results_file.hpp). Both
// platforms: on Linux, and under Wine for the Windows build (ci/check_windows.sh).
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "platform/held_file.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

using testing_support::TempDir;

TEST(HeldFile, ASecondTakerIsRefusedAndReadsTheHoldersWords) {
    TempDir dir("held_file");
    const std::string path = dir.file("out.json.lock");
    std::string holder;
    auto first = HeldFile::take(path, "first holder\n", holder);
    ASSERT_TRUE(first);
    EXPECT_TRUE(std::filesystem::exists(path));
    holder.clear();
    EXPECT_FALSE(HeldFile::take(path, "second holder\n", holder));
    EXPECT_EQ(holder, "first holder\n");
    // Let go: the file is gone, and the next taker gets it.
    first.reset();
    EXPECT_FALSE(std::filesystem::exists(path));
    auto second = HeldFile::take(path, "second holder\n", holder);
    ASSERT_TRUE(second);
    EXPECT_EQ(read_file(path), "second holder\n");
}

TEST(HeldFile, AFileLeftByAnEarlierHolderIsTakenOver) {
    TempDir dir("held_file");
    const std::string path = dir.file("left.lock");
    write_file_atomically(path, "a holder that is gone\n");
    std::string holder;
    auto taken = HeldFile::take(path, "mine\n", holder);
    ASSERT_TRUE(taken);
    EXPECT_EQ(read_file(path).substr(0, 5), "mine\n");
}

TEST(HeldFile, TakersRacingInThreadsNeverHoldAtOnce) {
    TempDir dir("held_file");
    const std::string path = dir.file("race.lock");
    std::atomic<int> holding{0};
    std::atomic<int> most{0};
    std::atomic<int> takes{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            for (int i = 0; i < 200; ++i) {
                std::string holder;
                auto held = HeldFile::take(path, "x\n", holder);
                if (!held) continue;
                const int now = ++holding;
                most = std::max(most.load(), now);
                ++takes;
                --holding;
            }
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(most.load(), 1);
    EXPECT_GT(takes.load(), 0);
}

ProcessOutcome run_cli(const std::vector<std::string>& args) {
    std::vector<std::string> argv{PINBENCH_EXE};
    argv.insert(argv.end(), args.begin(), args.end());
    Subprocess p(argv, {});
    return p.wait(std::chrono::seconds(120));
}

// Issue 54, item 9: two runs with the same -o both exited 0 and one run's results were lost.
// While one run writes out.json, a second with -o out.json is refused (exit 2, saying who holds
// it), and the first's file is whole and its own.
TEST(HeldFile, TwoRunsWithTheSameOutputTheSecondIsRefused) {
    TempDir dir("held_file");
    const std::string out = dir.file("out.json");
    const std::string source = std::string(PINBENCH_SOURCE_DIR) + "/results/h200-smoke/results.json";
    // Children of 100 ms: the first run lasts long enough for the second to meet it.
    const std::string script = dir.file("slow.yaml");
    write_file_atomically(
        script, "replay_script_version: 1\ninject:\n  - what: slow\n    runs: \"*\"\n    ms: 100\n");
    const std::vector<std::string> run = {"run",  "--backend",    "replay", "--from",
                                          source, "--script",     script,   "-o",
                                          out,    "--no-summary", "--only", "quick-overhead/*/64MiB/*"};
    std::vector<std::string> first_argv{PINBENCH_EXE};
    first_argv.insert(first_argv.end(), run.begin(), run.end());
    Subprocess first(first_argv, {});
    // The first holds the lock from before its first run until it ends.
    const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (!std::filesystem::exists(out + ".lock") && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(std::filesystem::exists(out + ".lock")) << "the first run never took its lock";
    const auto second = run_cli(run);
    const auto first_outcome = first.wait(std::chrono::seconds(120));
    EXPECT_EQ(second.exit_code, 2) << second.output;
    EXPECT_NE(
        second.output.find("is being written by another pinbench run, pid " + std::to_string(first.pid())),
        std::string::npos)
        << second.output;
    EXPECT_NE(second.output.find("Nothing was measured"), std::string::npos) << second.output;
    EXPECT_EQ(first_outcome.exit_code, 0) << first_outcome.output;
    const auto doc = nlohmann::json::parse(read_file(out));
    EXPECT_TRUE(doc.at("complete").get<bool>());
    EXPECT_FALSE(std::filesystem::exists(out + ".lock")) << "the lock outlived its run";
    // Ended, it blocks nothing: a third run writes the file.
    const auto third = run_cli(run);
    EXPECT_EQ(third.exit_code, 0) << third.output;
}

}  // namespace
}  // namespace pinbench
