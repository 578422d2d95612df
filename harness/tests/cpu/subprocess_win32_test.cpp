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

// PATH for one test (the wide environment, which Subprocess's search reads), then put back.
class PathVariable {
public:
    explicit PathVariable(const std::wstring& value) {
        std::wstring old(32768, L'\0');
        const DWORD n = ::GetEnvironmentVariableW(L"PATH", old.data(), static_cast<DWORD>(old.size()));
        had_ = n > 0;
        old.resize(n);
        old_ = old;
        ::SetEnvironmentVariableW(L"PATH", value.c_str());
    }
    ~PathVariable() { ::SetEnvironmentVariableW(L"PATH", had_ ? old_.c_str() : nullptr); }
    PathVariable(const PathVariable&) = delete;
    PathVariable& operator=(const PathVariable&) = delete;

private:
    std::wstring old_;
    bool had_ = false;
};

// Issue 54, item 2: CreateProcessW(nullptr, "pinreport ...") looked in the current folder first,
// so a pinreport.exe planted there ran. A bare name is looked for in PATH's absolute folders only.
TEST(SubprocessWin32, AProgramPlantedInTheCurrentFolderNeverRunsByItsBareName) {
    namespace fs = std::filesystem;
    const fs::path dir =
        fs::temp_directory_path() / ("pinbench-planted-" + std::to_string(::GetCurrentProcessId()));
    fs::create_directories(dir);
    fs::copy_file(testing_support::test_child_path(), dir / "pinbench-planted-child.exe",
                  fs::copy_options::overwrite_existing);
    const fs::path old_cwd = fs::current_path();
    fs::current_path(dir);
    for (const std::wstring path : {L".", L"", L"C:\\windows\\system32;;.", L".\\"}) {
        const PathVariable set(path);
        EXPECT_THROW(Subprocess({"pinbench-planted-child", "exit", "0"}, {}), SystemError);
        EXPECT_THROW(Subprocess({"pinbench-planted-child.exe", "exit", "0"}, {}), SystemError);
        EXPECT_THROW(tied_command({"pinbench-planted-child"}), SystemError);
    }
    {  // named with its folder, it is the user's choice
        Subprocess named({".\\pinbench-planted-child.exe", "exit", "5"}, {});
        EXPECT_EQ(named.wait(20s).exit_code, 5);
    }
    fs::current_path(old_cwd);
    {  // in an absolute PATH folder, a bare name finds it, .exe appended
        const PathVariable set(dir.wstring());
        Subprocess found({"pinbench-planted-child", "exit", "6"}, {});
        EXPECT_EQ(found.wait(20s).exit_code, 6);
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
}

// A program in a folder too deep to start from: the error says why and what to do.
TEST(SubprocessWin32, AProgramInAFolderTooDeepToStartSaysSo) {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("pinbench-deep-" + std::to_string(::GetCurrentProcessId()));
    const fs::path top = dir;
    while (dir.native().size() < 270) dir /= std::wstring(40, L'd');
    fs::create_directories(dir);
    const fs::path program = dir / "child.exe";
    fs::copy_file(testing_support::test_child_path(), program);
    try {
        Subprocess p({program.string(), "exit", "3"}, {});
        EXPECT_EQ(p.wait(20s).exit_code, 3);  // where Windows starts it after all
    } catch (const SystemError& e) {
        EXPECT_NE(std::string(e.what()).find("Windows starts no program from a path of 260 or more"),
                  std::string::npos)
            << e.what();
    }
    std::error_code ec;
    fs::remove_all(top, ec);
}

TEST(CurrentExecutablePathWin32, NamesThisTestBinary) {
    const std::filesystem::path path = current_executable_path();
    EXPECT_TRUE(path.is_absolute()) << path;
    EXPECT_TRUE(std::filesystem::exists(path)) << path;
    EXPECT_NE(path.filename().string().find("pinbench_cpu_tests"), std::string::npos) << path;
}

}  // namespace
}  // namespace pinbench
