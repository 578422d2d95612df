// Directory claims (pinbench/platform/directory_claim.hpp) and the work directories a launcher removes
// (run/child_launcher.hpp): a claim ends with its process, SIGKILL or TerminateProcess
// included, and only abandoned, launcher-named directories are removed. Runs on Linux and
// under Wine.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "pinbench/platform/directory_claim.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "run/child_launcher.hpp"
#include "temp_dir.hpp"

#ifdef _WIN32
#include "windows_support.hpp"
#else
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#endif

namespace pinbench {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using testing_support::TempDir;

TEST(DirectoryClaim, HeldWhileItLivesAbandonedAfter) {
    TempDir tmp("pinbench_claim");
    const std::string path = tmp.file("claim");
    EXPECT_EQ(claim_state(path), ClaimState::absent);
    {
        DirectoryClaim claim(path);
        EXPECT_EQ(claim_state(path), ClaimState::held);
        const DirectoryClaim moved(std::move(claim));
        EXPECT_EQ(claim_state(path), ClaimState::held) << "a moved claim still holds";
    }
    EXPECT_EQ(claim_state(path), ClaimState::abandoned);
}

// The case claims exist for: the owner is killed outright and runs no destructor.
TEST(DirectoryClaim, AKilledOwnerLetsGo) {
    TempDir tmp("pinbench_claim");
    const std::string path = tmp.file("claim");
#ifdef _WIN32
    {
        Subprocess child(testing_support::test_child("hold-claim", {path}), {});
        ASSERT_EQ(child.read_line(20s), std::optional<std::string>("claimed"));
        EXPECT_EQ(claim_state(path), ClaimState::held);
        EXPECT_EQ(child.wait(1ms).kind, ProcessOutcome::Kind::timed_out);  // killed: TerminateProcess
    }
#else
    int ready[2];
    ASSERT_EQ(::pipe(ready), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        const DirectoryClaim claim(path);
        const char byte = 1;
        (void)!::write(ready[1], &byte, 1);
        ::pause();
        ::_exit(0);
    }
    char byte = 0;
    ASSERT_EQ(::read(ready[0], &byte, 1), 1);
    ::close(ready[0]);
    ::close(ready[1]);
    EXPECT_EQ(claim_state(path), ClaimState::held);
    ::kill(pid, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFSIGNALED(status));
#endif
    EXPECT_EQ(claim_state(path), ClaimState::abandoned);
}

TEST(WorkDirs, OnlyAbandonedLauncherDirectoriesAreRemoved) {
    TempDir tmp("pinbench_workdirs");
    const auto dir = [&](const std::string& name) {
        fs::create_directories(tmp.path() / name);
        std::ofstream(tmp.path() / name / "request-0.json") << "{}";
        return tmp.path() / name;
    };
    const auto claimed_by_nobody = [&](const std::string& name) {
        const fs::path d = dir(name);
        { const DirectoryClaim gone((d / "claim").string()); }
        return d;
    };
    claimed_by_nobody("pinbench-4242-0a1b2c3d");          // killed: removed
    const fs::path live = dir("pinbench-4243-0a1b2c3e");  // its owner lives: kept
    const DirectoryClaim owner((live / "claim").string());
    dir("pinbench-4244-0a1b2c3f");                                     // unclaimed: kept for a day
    claimed_by_nobody("pinbench-abc-0a1b2c41");                        // not a launcher's name
    claimed_by_nobody("pinbench-4246-0A1B2C42");                       // not a launcher's name
    claimed_by_nobody("pinbench-4247-0a1b2c4");                        // not a launcher's name
    claimed_by_nobody("pinbench_store_x");                             // another test's
    std::ofstream(tmp.path() / "pinbench-4248-0a1b2c43") << "a file";  // not a directory
    const std::vector<std::string> others{"pinbench-4246-0A1B2C42", "pinbench-4247-0a1b2c4",
                                          "pinbench-4248-0a1b2c43", "pinbench-abc-0a1b2c41",
                                          "pinbench_store_x"};

    const std::string temp = tmp.path().string();
    EXPECT_EQ(remove_abandoned_work_dirs(temp),
              std::vector<std::string>{(tmp.path() / "pinbench-4242-0a1b2c3d").string()});
    std::vector<std::string> kept{"pinbench-4243-0a1b2c3e", "pinbench-4244-0a1b2c3f"};
    kept.insert(kept.end(), others.begin(), others.end());
    std::ranges::sort(kept);
    EXPECT_EQ(tmp.entries(), kept);
    EXPECT_EQ(remove_abandoned_work_dirs(temp), std::vector<std::string>{}) << "nothing twice";

    // Two days on, the unclaimed directory goes; the live one stays, however old.
    const auto later = fs::file_time_type::clock::now() + 48h;
    EXPECT_EQ(remove_abandoned_work_dirs(temp, later),
              std::vector<std::string>{(tmp.path() / "pinbench-4244-0a1b2c3f").string()});
    kept = others;
    kept.push_back("pinbench-4243-0a1b2c3e");
    std::ranges::sort(kept);
    EXPECT_EQ(tmp.entries(), kept);
}

// Two pinbench processes starting at once: one's sweep must never remove the other's new work
// directory. Claimers (threads: a lock belongs to an open file, not to a process, on both
// platforms) set up directories as ChildLauncher does while another thread sweeps the same
// folder; each claimer keeps its claim until two whole sweeps have started and ended after it
// was made, then checks that its directory and the file it wrote there are still there.
// A fixed number of claims, each claimer asleep while it waits: with a clock as the bound (1.5 s)
// and claimers spinning on the sweep count, the spinners took the CPU from the sweeper, and a
// loaded machine made too few claims (49 to 92 against the 100 asked, Linux and Wine).
TEST(WorkDirs, ASweepBesideNewClaimsRemovesNone) {
    TempDir tmp("pinbench_workdirs");
    const std::string temp = tmp.path().string();
    std::mutex mutex;
    std::condition_variable swept;
    bool stop = false;  // under mutex, as sweeps is
    long sweeps = 0;    // sweeps ended
    std::string sweep_error;
    std::thread sweeper([&] {
        for (;;) {
            try {
                remove_abandoned_work_dirs(temp);
            } catch (const std::exception& e) {
                if (sweep_error.empty()) sweep_error = e.what();
            }
            const std::lock_guard lock(mutex);
            ++sweeps;
            swept.notify_all();
            if (stop) return;
        }
    });
    constexpr int kClaimers = 4;
    // Against the claim of before 43bc60d (created, then locked), 1 to 5 of these 500 were lost
    // in 8 of 10 runs (Linux, load 15); 2 claimers of 250 each lost some in 5 of 10.
    constexpr int kClaimsEach = 125;
    std::vector<std::vector<std::string>> lost(kClaimers);  // what went wrong, per directory
    std::vector<std::thread> claimers;
    for (int c = 0; c < kClaimers; ++c) {
        claimers.emplace_back([&, c] {
            for (int i = 0; i < kClaimsEach; ++i) {
                char hex[9];
                std::snprintf(hex, sizeof hex, "%08x", static_cast<unsigned>(i));
                const fs::path dir = tmp.path() / ("pinbench-" + std::to_string(c) + "-" + hex);
                try {
                    fs::create_directories(dir);
                    const DirectoryClaim claim((dir / "claim").string());
                    std::ofstream(dir / "request-0.json") << "{}";
                    std::unique_lock lock(mutex);
                    const long after = sweeps + 1;  // the one running now may predate the claim
                    swept.wait(lock, [&] { return sweeps > after; });
                    lock.unlock();
                    if (!fs::exists(dir / "request-0.json")) lost[c].push_back(dir.string() + ": removed");
                } catch (const std::exception& e) {
                    lost[c].push_back(dir.string() + ": " + e.what());
                }
                // Released: the sweeper removes it (removed from two threads at once, a directory
                // can hang Wine's GetFileAttributesExW).
            }
        });
    }
    for (auto& t : claimers) t.join();
    {
        const std::lock_guard lock(mutex);
        stop = true;
    }
    sweeper.join();

    std::vector<std::string> all;
    for (const auto& l : lost) all.insert(all.end(), l.begin(), l.end());
    EXPECT_EQ(sweep_error, "");
    EXPECT_EQ(all.size(), 0U) << all.size() << " of " << kClaimers * kClaimsEach
                              << " directories lost, first: " << (all.empty() ? "" : all.front());
}

}  // namespace
}  // namespace pinbench
