// A child process with its standard output captured, waited for with a timeout.
// Platform code: harness/src/platform/subprocess_{posix,win32}.cpp (pimpl keeps OS types out).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace pinbench {

struct ProcessOutcome {
    // interrupted: this process was asked to stop (pinbench/platform/interrupt.hpp) while waiting; the
    // child and its group / job were killed.
    enum class Kind { exited, signalled, timed_out, interrupted } kind = Kind::exited;
    int exit_code = 0;   // when exited
    int signal = 0;      // when signalled (POSIX) / NTSTATUS code (Windows crash)
    std::string output;  // stdout and stderr together, last 64 KiB
    double wall_ms = 0;
};

struct SubprocessOptions {
    // The child shares our stdin, stdout and stderr (a traced user program) instead of pipes;
    // read_line and write_line then have nothing to read or write, and the outcome has no output.
    bool inherit_stdio = false;
    std::string working_directory;  // empty: ours
};

class Subprocess {
public:
    // Starts argv[0] with the given arguments; `env` entries are added to (or override) the
    // parent's environment. Throws SystemError when the process cannot start.
    Subprocess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
               const SubprocessOptions& options = {});
    ~Subprocess();  // kills and reaps the child if still running
    Subprocess(const Subprocess&) = delete;
    Subprocess& operator=(const Subprocess&) = delete;

    // Waits until the child exits, `timeout` passes or this process is asked to stop
    // (stop_signal()); on timeout or stop the child (and its process group / job) is killed and
    // reaped before returning.
    ProcessOutcome wait(std::chrono::milliseconds timeout);

    // Reads one line of the child's stdout if one arrives within `timeout` (for handshakes
    // such as "holding"); the line is also kept in the outcome's output.
    std::optional<std::string> read_line(std::chrono::milliseconds timeout);
    // Writes one line to the child's stdin.
    void write_line(const std::string& line);

    std::uint32_t pid() const;

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

// A command line that runs `argv` but ends it when this process dies, even by SIGKILL, for a
// program that is not ours (pinbench trace): on POSIX through `pinbench __exec` (Linux
// PR_SET_PDEATHSIG, which survives exec); on Windows the child's job object already does it and
// `argv` comes back unchanged. Throws SystemError when argv[0] is not an executable to be found.
std::vector<std::string> tied_command(const std::vector<std::string>& argv);

// `pinbench __exec --parent PID -- ARGV...`: ties this process to PID, then becomes ARGV.
// Returns only on failure, with the exit code to use (127, as a shell).
int exec_tied(std::uint32_t parent_pid, const std::vector<std::string>& argv);

// Path of the running executable (/proc/self/exe, GetModuleFileNameW).
std::string current_executable_path();

// Ends this process as a crash does, so that a parent sees a crash (ProcessOutcome::Kind::
// signalled): SIGABRT on POSIX; on Windows an unhandled access violation (0xC0000005), because
// std::abort() there is an ordinary exit with code 3. For injected crashes (replay scripts).
[[noreturn]] void crash_this_process();

}  // namespace pinbench
