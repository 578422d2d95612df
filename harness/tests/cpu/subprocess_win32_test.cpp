// Subprocess on Windows: the POSIX tests of subprocess_test.cpp, ported. The helper program
// (win32_test_child.cpp) plays the part of `sh -c`. Run under Wine by ci/check_windows.sh.
#include <gtest/gtest.h>
#include <windows.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>

#include "pinbench/platform/subprocess.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "windows_support.hpp"

namespace pinbench {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using testing_support::test_child;

// Whether process `pid` still runs (its handle is unsignalled), or is gone.
bool running(DWORD pid) {
    const HANDLE process = ::OpenProcess(SYNCHRONIZE, FALSE, pid);
    if (process == nullptr) return false;
    const bool alive = ::WaitForSingleObject(process, 0) == WAIT_TIMEOUT;
    ::CloseHandle(process);
    return alive;
}

TEST(SubprocessWin32, CapturesTheExitCode) {
    Subprocess p(test_child("exit", {"7"}), {});
    const ProcessOutcome o = p.wait(20s);
    EXPECT_EQ(o.kind, ProcessOutcome::Kind::exited);
    EXPECT_EQ(o.exit_code, 7);
    EXPECT_GE(o.wall_ms, 0.0);
}

TEST(SubprocessWin32, CapturesStdoutAndStderrTogether) {
    Subprocess p(test_child("print"), {});
    const ProcessOutcome o = p.wait(20s);
    ASSERT_EQ(o.kind, ProcessOutcome::Kind::exited);
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_EQ(o.output, "out\nerr\nno newline");
}

TEST(SubprocessWin32, WaitTwiceReturnsTheSameOutcome) {
    Subprocess p(test_child("exit", {"3"}), {});
    const ProcessOutcome first = p.wait(20s);
    const ProcessOutcome second = p.wait(20s);
    EXPECT_EQ(second.exit_code, 3);
    EXPECT_EQ(second.output, first.output);
    EXPECT_EQ(second.wall_ms, first.wall_ms);
}

TEST(SubprocessWin32, PidIsTheChildsPid) {
    Subprocess p(test_child("pid"), {});
    const auto line = p.read_line(20s);
    ASSERT_TRUE(line.has_value());
    EXPECT_EQ(*line, std::to_string(p.pid()));
    EXPECT_EQ(p.wait(20s).exit_code, 0);
}

TEST(SubprocessWin32, TimeoutKillsTheChildAndItsGrandchildrenPromptly) {
    // The child starts a grandchild (in the same job object) and reports its pid.
    Subprocess p(test_child("grandchild"), {});
    const auto line = p.read_line(20s);
    ASSERT_TRUE(line.has_value());
    const auto grandchild = static_cast<DWORD>(std::stoul(*line));
    EXPECT_TRUE(running(grandchild));

    const auto start = Clock::now();
    const ProcessOutcome o = p.wait(300ms);
    const auto elapsed = Clock::now() - start;
    EXPECT_EQ(o.kind, ProcessOutcome::Kind::timed_out);
    EXPECT_GE(elapsed, 250ms);
    EXPECT_LT(elapsed, 5s);

    const auto deadline = Clock::now() + 5s;
    while (running(grandchild) && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
    EXPECT_FALSE(running(grandchild)) << "grandchild " << grandchild << " survived the timeout";
}

TEST(SubprocessWin32, ACrashIsReportedWithItsExceptionCode) {
    // Under Wine this needs WINEDLLOVERRIDES=winedbg.exe=d (ci/check_windows.sh sets it), or
    // the debugger catches the crash instead.
    Subprocess p(test_child("crash"), {});
    const ProcessOutcome o = p.wait(30s);
    EXPECT_EQ(o.kind, ProcessOutcome::Kind::signalled) << o.output;
    EXPECT_EQ(static_cast<unsigned>(o.signal), 0xC0000005u) << "STATUS_ACCESS_VIOLATION expected";
}

// std::abort() on Windows is an exit with code 3; crash_this_process() must look like a crash.
TEST(SubprocessWin32, CrashThisProcessIsReportedAsACrash) {
    Subprocess p(test_child("crash-this-process"), {});
    const ProcessOutcome o = p.wait(30s);
    EXPECT_EQ(o.kind, ProcessOutcome::Kind::signalled) << "exit code " << o.exit_code << ": " << o.output;
    EXPECT_EQ(static_cast<unsigned>(o.signal), 0xC0000005u);
}

TEST(SubprocessWin32, EnvironmentEntriesAreAddedAndOverridden) {
    ::_putenv_s("PINBENCH_TEST_OVERRIDDEN", "parent");
    Subprocess p(test_child("env", {"PINBENCH_TEST_ADDED", "PINBENCH_TEST_OVERRIDDEN", "PATH"}),
                 {{"PINBENCH_TEST_ADDED", "a value with spaces"}, {"PINBENCH_TEST_OVERRIDDEN", "child"}});
    const ProcessOutcome o = p.wait(20s);
    ::_putenv_s("PINBENCH_TEST_OVERRIDDEN", "");
    ASSERT_EQ(o.kind, ProcessOutcome::Kind::exited);
    const char* path = std::getenv("PATH");
    EXPECT_EQ(o.output, std::string("a value with spaces|child|") + (path != nullptr ? path : ""));
}

TEST(SubprocessWin32, ReadLineAndWriteLineHandshake) {
    Subprocess p(test_child("handshake"), {});
    const auto ready = p.read_line(20s);
    ASSERT_TRUE(ready.has_value());
    EXPECT_EQ(*ready, "ready");
    p.write_line("hello");
    const auto reply = p.read_line(20s);
    ASSERT_TRUE(reply.has_value());
    EXPECT_EQ(*reply, "got hello");
    const ProcessOutcome o = p.wait(20s);
    EXPECT_EQ(o.kind, ProcessOutcome::Kind::exited);
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_EQ(o.output, "ready\ngot hello\n");  // lines read by read_line stay in the output
    EXPECT_FALSE(p.read_line(10ms).has_value());
}

TEST(SubprocessWin32, ReadLineTimesOutWithoutALine) {
    Subprocess p(test_child("partial"), {});
    const auto start = Clock::now();
    EXPECT_FALSE(p.read_line(200ms).has_value());
    const auto elapsed = Clock::now() - start;
    EXPECT_GE(elapsed, 150ms);
    EXPECT_LT(elapsed, 5s);
}

TEST(SubprocessWin32, WaitClosesStdinSoAReadingChildFinishes) {
    Subprocess p(test_child("drain"), {});
    const ProcessOutcome o = p.wait(20s);
    EXPECT_EQ(o.kind, ProcessOutcome::Kind::exited);
    EXPECT_EQ(o.output, "done\n");
}

TEST(SubprocessWin32, WriteLineToAClosedStdinThrowsInsteadOfKillingUs) {
    PINBENCH_SKIP_UNDER_WINE(
        "CREATE_NO_WINDOW starts a headless conhost.exe that inherits the child's pipe handles, so "
        "the read end stays open after the child closes its stdin and the write succeeds");
    Subprocess p(test_child("close-stdin"), {});
    ASSERT_EQ(p.read_line(20s), std::optional<std::string>("closed"));
    EXPECT_THROW(p.write_line("nobody reads this"), SystemError);
}

TEST(SubprocessWin32, LargeOutputDoesNotDeadlockAndKeepsTheLast64KiB) {
    Subprocess p(test_child("flood", {"200000"}), {});
    const ProcessOutcome o = p.wait(60s);
    ASSERT_EQ(o.kind, ProcessOutcome::Kind::exited);
    EXPECT_EQ(o.exit_code, 0);
    ASSERT_EQ(o.output.size(), 64u * 1024u);
    const std::string end = "abcdefghij\ndone\n";
    EXPECT_EQ(o.output.substr(o.output.size() - end.size()), end);
}

TEST(SubprocessWin32, LargeOutputWhileWritingStdinDoesNotDeadlock) {
    Subprocess p(test_child("flood-then-read", {"100000"}), {});
    p.write_line("late");
    const ProcessOutcome o = p.wait(60s);
    ASSERT_EQ(o.kind, ProcessOutcome::Kind::exited);
    ASSERT_GE(o.output.size(), 9u);
    EXPECT_EQ(o.output.substr(o.output.size() - 9), "got late\n");
}

TEST(SubprocessWin32, DestructorKillsARunningChild) {
    DWORD pid = 0;
    const auto start = Clock::now();
    {
        Subprocess p(test_child("handshake"), {});
        ASSERT_TRUE(p.read_line(20s).has_value());
        pid = p.pid();
    }
    EXPECT_LT(Clock::now() - start, 5s);
    EXPECT_FALSE(running(pid)) << "child " << pid << " still runs after the destructor";
}

TEST(SubprocessWin32, AProgramThatDoesNotExistThrowsSystemError) {
    try {
        Subprocess p({"C:\\nonexistent\\pinbench-no-such-program.exe"}, {});
        FAIL() << "expected SystemError";
    } catch (const SystemError& e) {
        EXPECT_NE(std::string(e.what()).find("pinbench-no-such-program"), std::string::npos) << e.what();
    }
    EXPECT_THROW(Subprocess({}, {}), SystemError);
    EXPECT_THROW(Subprocess(test_child("exit", {"0"}), {{"BAD=NAME", "x"}}), SystemError);
}

TEST(CurrentExecutablePathWin32, NamesThisTestBinary) {
    const std::filesystem::path path = current_executable_path();
    EXPECT_TRUE(path.is_absolute()) << path;
    EXPECT_TRUE(std::filesystem::exists(path)) << path;
    EXPECT_NE(path.filename().string().find("pinbench_cpu_tests"), std::string::npos) << path;
}

}  // namespace
}  // namespace pinbench
