// Directory claims (pinbench/directory_claim.hpp) and the work directories a launcher removes
// (run/child_launcher.hpp): a claim ends with its process, SIGKILL or TerminateProcess
// included, and only abandoned, launcher-named directories are removed. Runs on Linux and
// under Wine.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "pinbench/directory_claim.hpp"
#include "pinbench/subprocess.hpp"
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

}  // namespace
}  // namespace pinbench
