// Subprocess: exit codes, output capture, timeouts, signals, environment, line handshakes, and
// the Windows command-line quoting rules (plain string code, so tested on every platform).
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "pinbench/platform/subprocess.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "platform/windows_command_line.hpp"

#ifndef _WIN32
#include <signal.h>
#include <unistd.h>

#include <fstream>
#endif

namespace pinbench {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

// --- Windows command-line quoting ------------------------------------------------------------

// The argument rules of the MSVC C runtime / CommandLineToArgvW for every argument after the
// program name ("Parsing C++ command-line arguments"), written independently of the quoting code.
std::vector<std::string> parse_windows_arguments(const std::string& line) {
    std::vector<std::string> args;
    std::size_t i = 0;
    const std::size_t n = line.size();
    for (;;) {
        while (i < n && (line[i] == ' ' || line[i] == '\t')) ++i;
        if (i == n) return args;
        std::string arg;
        bool quoted = false;
        while (i < n && (quoted || (line[i] != ' ' && line[i] != '\t'))) {
            if (line[i] == '\\') {
                std::size_t count = 0;
                while (i < n && line[i] == '\\') ++count, ++i;
                if (i < n && line[i] == '"') {
                    arg.append(count / 2, '\\');
                    if (count % 2 == 1) {
                        arg += '"';
                        ++i;
                    }
                } else {
                    arg.append(count, '\\');
                }
            } else if (line[i] == '"') {
                if (quoted && i + 1 < n && line[i + 1] == '"') {
                    arg += '"';
                    i += 2;
                } else {
                    quoted = !quoted;
                    ++i;
                }
            } else {
                arg += line[i++];
            }
        }
        args.push_back(arg);
    }
}

TEST(WindowsCommandLine, ReferenceParserFollowsTheDocumentedExamples) {
    // The table in Microsoft's "Parsing C++ command-line arguments".
    EXPECT_EQ(parse_windows_arguments(R"("a b c" d e)"), (std::vector<std::string>{"a b c", "d", "e"}));
    EXPECT_EQ(parse_windows_arguments(R"("ab\"c" "\\" d)"), (std::vector<std::string>{"ab\"c", "\\", "d"}));
    EXPECT_EQ(parse_windows_arguments(R"(a\\\b d"e f"g h)"),
              (std::vector<std::string>{R"(a\\\b)", "de fg", "h"}));
    EXPECT_EQ(parse_windows_arguments(R"(a\\\"b c d)"), (std::vector<std::string>{R"(a\"b)", "c", "d"}));
    EXPECT_EQ(parse_windows_arguments(R"(a\\\\"b c" d e)"),
              (std::vector<std::string>{R"(a\\b c)", "d", "e"}));
}

TEST(WindowsCommandLine, QuotesOnlyWhatNeedsQuoting) {
    EXPECT_EQ(quote_windows_argument("plain"), "plain");
    EXPECT_EQ(quote_windows_argument(R"(C:\dir\file.exe)"), R"(C:\dir\file.exe)");
    EXPECT_EQ(quote_windows_argument(R"(C:\dir\)"), R"(C:\dir\)");  // no quote follows: literal
    EXPECT_EQ(quote_windows_argument(""), R"("")");
    EXPECT_EQ(quote_windows_argument("a b"), R"("a b")");
    EXPECT_EQ(quote_windows_argument("tab\there"), "\"tab\there\"");
    EXPECT_EQ(quote_windows_argument(R"(a"b)"), R"("a\"b")");
    EXPECT_EQ(quote_windows_argument(R"(a b\)"), R"("a b\\")");   // doubled before the closing quote
    EXPECT_EQ(quote_windows_argument(R"(a\"b)"), R"("a\\\"b")");  // 1 backslash + quote -> 3 + quote
    EXPECT_EQ(quote_windows_argument(R"(C:\Program Files\x)"), R"("C:\Program Files\x")");
    EXPECT_EQ(join_windows_command_line({"prog", "a b", ""}), R"(prog "a b" "")");
}

TEST(WindowsCommandLine, EveryArgumentSurvivesTheRoundTrip) {
    const std::vector<std::string> nasty = {
        "",      "a",        "a b",     "a\\",       "a b\\",    "a b\\\\",  "\\\\server\\share\\",
        "\"",    "\\\"",     "\\\\\"",  "a\"b c\"d", "\" \"",    "x\\\\\"y", "trailing space ",
        " lead", "tab\tsep", "nl\nsep", "\"\"",      "a\\\\b c", "é ü ∑",    "--flag=\"quoted value\"",
    };
    std::vector<std::string> argv = {"prog.exe"};
    argv.insert(argv.end(), nasty.begin(), nasty.end());
    const std::string line = join_windows_command_line(argv);
    // The program name is parsed by other rules; it is plain here, so split it off directly.
    ASSERT_EQ(line.rfind("prog.exe ", 0), 0u) << line;
    EXPECT_EQ(parse_windows_arguments(line.substr(9)), nasty) << line;
}

// --- POSIX behaviour --------------------------------------------------------------------------
#ifndef _WIN32

std::vector<std::string> sh(const std::string& script) { return {"sh", "-c", script}; }

TEST(Subprocess, CapturesTheExitCode) {
    Subprocess p(sh("exit 7"), {});
    const ProcessOutcome o = p.wait(10s);
    EXPECT_EQ(o.kind, ProcessOutcome::Kind::exited);
    EXPECT_EQ(o.exit_code, 7);
    EXPECT_GE(o.wall_ms, 0.0);
}

TEST(Subprocess, CapturesStdoutAndStderrTogether) {
    Subprocess p(sh("echo out; echo err 1>&2; printf 'no newline'"), {});
    const ProcessOutcome o = p.wait(10s);
    ASSERT_EQ(o.kind, ProcessOutcome::Kind::exited);
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_EQ(o.output, "out\nerr\nno newline");
}

TEST(Subprocess, WaitTwiceReturnsTheSameOutcome) {
    Subprocess p(sh("echo once; exit 3"), {});
    const ProcessOutcome first = p.wait(10s);
    const ProcessOutcome second = p.wait(10s);
    EXPECT_EQ(second.exit_code, 3);
    EXPECT_EQ(second.output, first.output);
    EXPECT_EQ(second.wall_ms, first.wall_ms);
}

TEST(Subprocess, PidIsTheChildsPid) {
    Subprocess p(sh("echo $$"), {});
    const auto line = p.read_line(10s);
    ASSERT_TRUE(line.has_value());
    EXPECT_EQ(*line, std::to_string(p.pid()));
    EXPECT_EQ(p.wait(10s).exit_code, 0);
}

// True once `pid` is gone or a zombie (a killed orphan may wait for a reaper that never comes
// in a container whose init does not reap).
bool gone(pid_t pid) {
    if (::kill(pid, 0) != 0) return true;
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto paren = text.rfind(')');
    return paren != std::string::npos && paren + 2 < text.size() && text[paren + 2] == 'Z';
}

TEST(Subprocess, TimeoutKillsTheChildAndItsGroupPromptly) {
    // The shell starts a grandchild in the same process group and reports its pid.
    Subprocess p(sh("sleep 30 & echo $!; wait"), {});
    const auto line = p.read_line(10s);
    ASSERT_TRUE(line.has_value());
    const pid_t grandchild = static_cast<pid_t>(std::stol(*line));

    const auto start = Clock::now();
    const ProcessOutcome o = p.wait(300ms);
    const auto elapsed = Clock::now() - start;
    EXPECT_EQ(o.kind, ProcessOutcome::Kind::timed_out);
    EXPECT_GE(elapsed, 250ms);
    EXPECT_LT(elapsed, 5s);
    EXPECT_LT(o.wall_ms, 5000.0);

    const auto deadline = Clock::now() + 5s;
    while (!gone(grandchild) && Clock::now() < deadline) std::this_thread::sleep_for(10ms);
    EXPECT_TRUE(gone(grandchild)) << "grandchild " << grandchild << " survived the timeout";
}

TEST(Subprocess, ChildKilledBySignalIsReportedAsSignalled) {
    Subprocess p(sh("ulimit -c 0; kill -SEGV $$"), {});  // no core file in the build tree
    const ProcessOutcome o = p.wait(20s);
    EXPECT_EQ(o.kind, ProcessOutcome::Kind::signalled);
    EXPECT_EQ(o.signal, SIGSEGV);
}

TEST(Subprocess, EnvironmentEntriesAreAddedAndOverridden) {
    ::setenv("PINBENCH_TEST_OVERRIDDEN", "parent", 1);
    Subprocess p(sh("printf '%s|%s|%s' \"$PINBENCH_TEST_ADDED\" \"$PINBENCH_TEST_OVERRIDDEN\" \"$PATH\""),
                 {{"PINBENCH_TEST_ADDED", "a value with spaces"}, {"PINBENCH_TEST_OVERRIDDEN", "child"}});
    const ProcessOutcome o = p.wait(10s);
    ::unsetenv("PINBENCH_TEST_OVERRIDDEN");
    ASSERT_EQ(o.kind, ProcessOutcome::Kind::exited);
    const char* path = std::getenv("PATH");
    EXPECT_EQ(o.output, std::string("a value with spaces|child|") + (path != nullptr ? path : ""));
}

TEST(Subprocess, ReadLineAndWriteLineHandshake) {
    Subprocess p(sh("echo ready; read x; echo got $x"), {});
    const auto ready = p.read_line(10s);
    ASSERT_TRUE(ready.has_value());
    EXPECT_EQ(*ready, "ready");
    p.write_line("hello");
    const auto reply = p.read_line(10s);
    ASSERT_TRUE(reply.has_value());
    EXPECT_EQ(*reply, "got hello");
    const ProcessOutcome o = p.wait(10s);
    EXPECT_EQ(o.kind, ProcessOutcome::Kind::exited);
    EXPECT_EQ(o.exit_code, 0);
    EXPECT_EQ(o.output, "ready\ngot hello\n");  // lines read by read_line stay in the output
    EXPECT_FALSE(p.read_line(10ms).has_value());
}

TEST(Subprocess, ReadLineTimesOutWithoutALine) {
    Subprocess p(sh("printf partial; sleep 30"), {});
    const auto start = Clock::now();
    EXPECT_FALSE(p.read_line(200ms).has_value());
    const auto elapsed = Clock::now() - start;
    EXPECT_GE(elapsed, 150ms);
    EXPECT_LT(elapsed, 5s);
}

TEST(Subprocess, ReadLineReturnsAnUnterminatedLastLineAtEof) {
    Subprocess p(sh("printf 'one\\ntwo'"), {});
    EXPECT_EQ(p.read_line(10s), std::optional<std::string>("one"));
    EXPECT_EQ(p.read_line(10s), std::optional<std::string>("two"));
    EXPECT_EQ(p.read_line(10s), std::nullopt);
}

TEST(Subprocess, WaitClosesStdinSoAReadingChildFinishes) {
    Subprocess p(sh("cat >/dev/null; echo done"), {});
    const ProcessOutcome o = p.wait(10s);
    EXPECT_EQ(o.kind, ProcessOutcome::Kind::exited);
    EXPECT_EQ(o.output, "done\n");
}

TEST(Subprocess, WriteLineToAClosedStdinThrowsInsteadOfKillingUs) {
    Subprocess p(sh("exec 0<&-; echo closed; sleep 30"), {});
    ASSERT_EQ(p.read_line(10s), std::optional<std::string>("closed"));
    EXPECT_THROW(p.write_line("nobody reads this"), SystemError);
}

TEST(Subprocess, LargeOutputDoesNotDeadlockAndKeepsTheLast64KiB) {
    // 200000 lines of 11 bytes (2.2 MB) before any read: far more than a pipe holds.
    Subprocess p(sh("yes abcdefghij | head -n 200000; echo done"), {});
    const ProcessOutcome o = p.wait(60s);
    ASSERT_EQ(o.kind, ProcessOutcome::Kind::exited);
    EXPECT_EQ(o.exit_code, 0);
    ASSERT_EQ(o.output.size(), 64u * 1024u);
    const std::string end = "abcdefghij\ndone\n";
    EXPECT_EQ(o.output.substr(o.output.size() - end.size()), end);
    // Nothing but whole repetitions before the end (the tail may start mid-line).
    const std::string body = o.output.substr(0, o.output.size() - 5);
    for (std::size_t i = body.size() % 11; i + 11 <= body.size(); i += 11)
        ASSERT_EQ(body.substr(i, 11), "abcdefghij\n");
}

TEST(Subprocess, LargeOutputWhileWritingStdinDoesNotDeadlock) {
    // The child floods stdout before reading stdin; write_line must keep draining.
    Subprocess p(sh("yes 0123456789 | head -n 100000; read x; echo got $x"), {});
    p.write_line("late");
    const ProcessOutcome o = p.wait(60s);
    ASSERT_EQ(o.kind, ProcessOutcome::Kind::exited);
    EXPECT_EQ(o.output.substr(o.output.size() - 9), "got late\n");
}

TEST(Subprocess, DestructorKillsARunningChild) {
    pid_t pid = 0;
    const auto start = Clock::now();
    {
        Subprocess p(sh("echo up; sleep 30"), {});
        ASSERT_TRUE(p.read_line(10s).has_value());
        pid = static_cast<pid_t>(p.pid());
    }
    EXPECT_LT(Clock::now() - start, 5s);
    EXPECT_NE(::kill(pid, 0), 0) << "child " << pid << " still exists after the destructor";
}

TEST(Subprocess, AProgramThatDoesNotExistThrowsSystemError) {
    try {
        Subprocess p({"/nonexistent/pinbench-no-such-program"}, {});
        FAIL() << "expected SystemError";
    } catch (const SystemError& e) {
        EXPECT_NE(std::string(e.what()).find("/nonexistent/pinbench-no-such-program"), std::string::npos)
            << e.what();
    }
    EXPECT_THROW(Subprocess({}, {}), SystemError);
    EXPECT_THROW(Subprocess(sh("true"), {{"BAD=NAME", "x"}}), SystemError);
}

TEST(CurrentExecutablePath, NamesThisTestBinary) {
    const std::filesystem::path path = current_executable_path();
    EXPECT_TRUE(path.is_absolute()) << path;
    EXPECT_TRUE(std::filesystem::exists(path)) << path;
    EXPECT_NE(path.filename().string().find("pinbench_cpu_tests"), std::string::npos) << path;
}

#endif  // _WIN32

}  // namespace
}  // namespace pinbench
