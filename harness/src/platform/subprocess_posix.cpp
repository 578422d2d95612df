// Subprocess on POSIX: posix_spawn of the program find_program names (platform/program_search.hpp:
// never one in the current folder) into a process group of its own, one pipe for stdin and one
// for stdout+stderr, and poll() so the child never blocks on a full pipe while we wait.
#include "pinbench/platform/subprocess.hpp"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "pinbench/platform/interrupt.hpp"
#include "pinbench/platform/utf8.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "platform/fd_posix.hpp"
#include "platform/program_search.hpp"

extern char** environ;  // NOLINT: the POSIX interface to the process environment

namespace pinbench {
namespace {

using Clock = std::chrono::steady_clock;
using posix::errno_text;
using posix::UniqueFd;

constexpr std::size_t kOutputKeep = std::size_t{64} * 1024;
// Exit is noticed by polling waitid(); EOF on the pipe (the usual sign of exit) shortens it.
constexpr int kExitPollMs = 10;
constexpr int kAfterEofPollMs = 1;
// How long output that processes outside the child's group still write is collected after exit.
constexpr auto kDrainGrace = std::chrono::milliseconds(200);

// A deadline far enough away for "forever" without overflowing the clock.
Clock::time_point deadline_after(std::chrono::milliseconds timeout) {
    constexpr auto kMax = std::chrono::hours(24 * 365);
    return Clock::now() + std::clamp<std::chrono::milliseconds>(timeout, std::chrono::milliseconds(0), kMax);
}

// Milliseconds left until `deadline`, rounded up so that poll() never spins with 0.
int ms_until(Clock::time_point deadline) {
    const auto left = deadline - Clock::now();
    if (left <= Clock::duration::zero()) return 0;
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
    return static_cast<int>(std::min<long long>(ms, INT_MAX));
}

bool is_program(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

void append_tail(std::string& tail, const char* data, std::size_t n) {
    if (n >= kOutputKeep) {
        tail.assign(data + (n - kOutputKeep), kOutputKeep);
        return;
    }
    tail.append(data, n);
    if (tail.size() > kOutputKeep) tail.erase(0, tail.size() - kOutputKeep);
}

// Pipe ends are close-on-exec and above 2, so the dup2 onto 0/1/2 in the child cannot clobber
// one of them even when the parent runs with a standard descriptor closed.
UniqueFd above_stdio(int fd) {
    UniqueFd owned(fd);
    if (fd > 2) return owned;
    const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (moved < 0) throw SystemError("fcntl(F_DUPFD_CLOEXEC): " + errno_text(errno));
    return UniqueFd(moved);
}

struct Pipe {
    UniqueFd read_end;
    UniqueFd write_end;
};

Pipe make_pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw SystemError("pipe2: " + errno_text(errno));
    Pipe p;
    p.read_end = above_stdio(fds[0]);
    p.write_end = above_stdio(fds[1]);
    return p;
}

class SpawnFileActions {
public:
    SpawnFileActions() {
        if (const int rc = ::posix_spawn_file_actions_init(&actions_); rc != 0) {
            throw SystemError("posix_spawn_file_actions_init: " + errno_text(rc));
        }
    }
    ~SpawnFileActions() { ::posix_spawn_file_actions_destroy(&actions_); }
    SpawnFileActions(const SpawnFileActions&) = delete;
    SpawnFileActions& operator=(const SpawnFileActions&) = delete;
    void dup2(int fd, int target) {
        if (const int rc = ::posix_spawn_file_actions_adddup2(&actions_, fd, target); rc != 0) {
            throw SystemError("posix_spawn_file_actions_adddup2: " + errno_text(rc));
        }
    }
    void chdir(const std::string& dir) {
        // glibc 2.29+ (Debian 11, Ubuntu 20.04 and later); the child changes directory before exec.
        if (const int rc = ::posix_spawn_file_actions_addchdir_np(&actions_, dir.c_str()); rc != 0) {
            throw SystemError("posix_spawn_file_actions_addchdir_np: " + errno_text(rc));
        }
    }
    const posix_spawn_file_actions_t* get() const { return &actions_; }

private:
    posix_spawn_file_actions_t actions_;
};

class SpawnAttributes {
public:
    SpawnAttributes() {
        if (const int rc = ::posix_spawnattr_init(&attr_); rc != 0) {
            throw SystemError("posix_spawnattr_init: " + errno_text(rc));
        }
    }
    ~SpawnAttributes() { ::posix_spawnattr_destroy(&attr_); }
    SpawnAttributes(const SpawnAttributes&) = delete;
    SpawnAttributes& operator=(const SpawnAttributes&) = delete;
    posix_spawnattr_t* get() { return &attr_; }

private:
    posix_spawnattr_t attr_;
};

void check(int rc, const char* what) {
    if (rc != 0) throw SystemError(std::string(what) + ": " + errno_text(rc));
}

// The parent's environment with `overrides` added or replacing entries of the same name.
std::vector<std::string> child_environment(const std::map<std::string, std::string>& overrides) {
    for (const auto& [name, value] : overrides) {
        if (name.empty() || name.find('=') != std::string::npos) {
            throw SystemError("invalid environment variable name '" + name + "'");
        }
    }
    std::vector<std::string> entries;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
        const std::string entry(*e);
        const auto eq = entry.find('=');
        if (eq != std::string::npos && overrides.count(entry.substr(0, eq)) != 0) continue;
        entries.push_back(entry);
    }
    for (const auto& [name, value] : overrides) entries.push_back(name + "=" + value);
    return entries;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
    std::vector<char*> p;
    p.reserve(strings.size() + 1);
    for (auto& s : strings) p.push_back(s.data());
    p.push_back(nullptr);
    return p;
}

// Writing to a child that has exited raises SIGPIPE, which would kill us. Block it in this
// thread for the duration of the write (EPIPE is reported instead) and swallow the one the
// write raised, without touching the process-wide disposition.
class SigpipeBlock {
public:
    SigpipeBlock() {
        sigemptyset(&pipe_);
        sigaddset(&pipe_, SIGPIPE);
        sigset_t pending;
        sigemptyset(&pending);
        ::sigpending(&pending);
        was_pending_ = sigismember(&pending, SIGPIPE) == 1;
        ::pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
    }
    ~SigpipeBlock() {
        if (!was_pending_) {
            const int saved = errno;
            const timespec zero{};
            while (::sigtimedwait(&pipe_, nullptr, &zero) == -1 && errno == EINTR) {
            }
            errno = saved;
        }
        ::pthread_sigmask(SIG_SETMASK, &old_, nullptr);
    }
    SigpipeBlock(const SigpipeBlock&) = delete;
    SigpipeBlock& operator=(const SigpipeBlock&) = delete;

private:
    sigset_t pipe_;
    sigset_t old_;
    bool was_pending_ = false;
};

}  // namespace

struct Subprocess::Impl {
    pid_t pid = -1;
    bool reaped = false;
    UniqueFd in;   // our end of the child's stdin (non-blocking)
    UniqueFd out;  // our end of the child's stdout+stderr
    bool out_eof = false;
    std::string tail;     // the last 64 KiB of output
    std::string pending;  // output read_line has not returned yet
    bool keep_pending = true;
    std::vector<char> buffer = std::vector<char>(kOutputKeep);
    Clock::time_point started;
    std::optional<ProcessOutcome> outcome;

    Impl() = default;
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;
    ~Impl() {
        if (pid > 0 && !reaped) {
            kill_group();
            reap();
        }
    }

    // Reads what is available, waiting up to timeout_ms for it. True when bytes or EOF arrived.
    bool pump(int timeout_ms) {
        if (out_eof) return false;
        pollfd fd{out.get(), POLLIN, 0};
        const int ready = ::poll(&fd, 1, timeout_ms);
        if (ready <= 0) return false;  // timeout, or EINTR: the caller's loop retries
        return read_available();
    }

    bool read_available() {
        const ssize_t n = ::read(out.get(), buffer.data(), buffer.size());
        if (n > 0) {
            append_tail(tail, buffer.data(), static_cast<std::size_t>(n));
            if (keep_pending) pending.append(buffer.data(), static_cast<std::size_t>(n));
            return true;
        }
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) return false;
        out_eof = true;  // EOF, or an error that no retry will cure
        out.reset();
        return true;
    }

    // True once the child has exited; it stays a zombie (not reaped), so its process-group id
    // cannot be reused while kill_group() may still target it.
    bool exited() {
        siginfo_t info{};
        info.si_pid = 0;
        if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) {
            return errno == ECHILD;
        }
        return info.si_pid == pid;
    }

    void kill_group() {
        if (::kill(-pid, SIGKILL) != 0) ::kill(pid, SIGKILL);
    }

    // The wait status; empty when the child was reaped elsewhere (SIGCHLD ignored by the process).
    std::optional<int> reap() {
        int status = 0;
        pid_t r;
        while ((r = ::waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
        }
        reaped = true;
        if (r != pid) return std::nullopt;
        return status;
    }
};

Subprocess::Subprocess(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env,
                       const SubprocessOptions& options)
    : impl_(std::make_unique<Impl>()) {
    if (argv.empty()) throw SystemError("cannot start a process: empty argument list");
    const std::string program = find_program(argv[0]);
    std::vector<std::string> args = argv;
    std::vector<std::string> environment = child_environment(env);
    std::vector<char*> arg_ptrs = pointers(args);
    std::vector<char*> env_ptrs = pointers(environment);

    Pipe stdin_pipe = make_pipe();
    Pipe stdout_pipe = make_pipe();

    SpawnFileActions actions;
    if (!options.inherit_stdio) {
        actions.dup2(stdin_pipe.read_end.get(), 0);
        actions.dup2(stdout_pipe.write_end.get(), 1);
        actions.dup2(stdout_pipe.write_end.get(), 2);
    }
    if (!options.working_directory.empty()) actions.chdir(options.working_directory);

    SpawnAttributes attr;
    // Own process group: a timeout kills everything the child started, and a Ctrl-C in our
    // terminal reaches only us (we then kill the child on the way out).
    check(::posix_spawnattr_setpgroup(attr.get(), 0), "posix_spawnattr_setpgroup");
    sigset_t none;
    sigemptyset(&none);
    check(::posix_spawnattr_setsigmask(attr.get(), &none), "posix_spawnattr_setsigmask");
    // Ignored signals survive exec; give the child default handling whatever our state is.
    sigset_t defaults;
    sigemptyset(&defaults);
    for (const int sig : {SIGPIPE, SIGINT, SIGQUIT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&defaults, sig);
    check(::posix_spawnattr_setsigdefault(attr.get(), &defaults), "posix_spawnattr_setsigdefault");
    check(::posix_spawnattr_setflags(attr.get(),
                                     POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF),
          "posix_spawnattr_setflags");

    impl_->started = Clock::now();
    pid_t pid = -1;
    const int rc =
        ::posix_spawn(&pid, program.c_str(), actions.get(), attr.get(), arg_ptrs.data(), env_ptrs.data());
    if (rc != 0) throw SystemError("cannot start '" + argv[0] + "': " + errno_text(rc));
    impl_->pid = pid;

    // The child's ends close here, so EOF on stdout means every writer is gone.
    impl_->in = std::move(stdin_pipe.write_end);
    impl_->out = std::move(stdout_pipe.read_end);
    if (options.inherit_stdio) {
        impl_->out.reset();  // nothing writes to it: the child has our stdout
        impl_->out_eof = true;
    }
    const int flags = ::fcntl(impl_->in.get(), F_GETFL);
    if (flags < 0 || ::fcntl(impl_->in.get(), F_SETFL, flags | O_NONBLOCK) < 0) {
        throw SystemError("fcntl(O_NONBLOCK) on the child's stdin: " + errno_text(errno));
    }
}

Subprocess::~Subprocess() = default;  // Impl kills and reaps

ProcessOutcome Subprocess::wait(std::chrono::milliseconds timeout) {
    Impl& p = *impl_;
    if (p.outcome) return *p.outcome;
    // EOF on stdin: nothing more will be written, so a child reading it cannot hang on us.
    p.in.reset();
    p.keep_pending = false;
    p.pending.clear();

    const auto deadline = deadline_after(timeout);
    bool timed_out = false, interrupted = false;
    while (!p.exited()) {
        const int left = ms_until(deadline);
        if (left == 0) {
            timed_out = true;
            break;
        }
        if (stop_signal() != 0) {
            interrupted = true;
            break;
        }
        if (p.out_eof) {
            ::poll(nullptr, 0, std::min(left, kAfterEofPollMs));
        } else {
            p.pump(std::min(left, kExitPollMs));
        }
    }
    const auto ended = Clock::now();
    // On a timeout this kills the child and its tree; after a normal exit it kills whatever
    // the child left running in its group, so nothing it started outlives wait().
    p.kill_group();
    const std::optional<int> status = p.reap();

    // Collect what is still in the pipe. Every writer in the group is dead, so EOF comes at once
    // unless a process left the group (setsid) and still holds the pipe: bounded by a grace.
    const auto drain_deadline = Clock::now() + kDrainGrace;
    while (!p.out_eof) {
        const int left = ms_until(drain_deadline);
        if (left == 0) break;
        p.pump(left);
    }

    ProcessOutcome o;
    if (timed_out) {
        o.kind = ProcessOutcome::Kind::timed_out;
    } else if (interrupted) {
        o.kind = ProcessOutcome::Kind::interrupted;
    } else if (status && WIFSIGNALED(*status)) {
        o.kind = ProcessOutcome::Kind::signalled;
        o.signal = WTERMSIG(*status);
    } else {
        o.kind = ProcessOutcome::Kind::exited;
        o.exit_code = status && WIFEXITED(*status) ? WEXITSTATUS(*status) : -1;  // -1: status unknown
    }
    o.output = p.tail;
    o.wall_ms = std::chrono::duration<double, std::milli>(ended - p.started).count();
    p.outcome = o;
    return o;
}

std::optional<std::string> Subprocess::read_line(std::chrono::milliseconds timeout) {
    Impl& p = *impl_;
    if (!p.keep_pending) return std::nullopt;  // after wait(): the output is in the outcome
    const auto deadline = deadline_after(timeout);
    // `last`: the deadline has passed and one final non-blocking read has been made.
    for (bool last = false;;) {
        const auto newline = p.pending.find('\n');
        if (newline != std::string::npos) {
            std::string line = p.pending.substr(0, newline);
            p.pending.erase(0, newline + 1);
            if (!line.empty() && line.back() == '\r') line.pop_back();
            return line;
        }
        if (p.out_eof) {
            // The last line may lack its newline; after that there is nothing more.
            if (p.pending.empty()) return std::nullopt;
            return std::exchange(p.pending, std::string());
        }
        if (last) return std::nullopt;
        const int left = ms_until(deadline);
        last = left == 0;
        p.pump(left);
    }
}

void Subprocess::write_line(const std::string& line) {
    Impl& p = *impl_;
    if (!p.in.valid()) throw SystemError("cannot write to the child's stdin: it is closed");
    const std::string data = line + "\n";
    std::size_t written = 0;
    SigpipeBlock block;
    while (written < data.size()) {
        // Keep draining stdout while stdin is full: a child blocked writing its output would
        // otherwise never read its input.
        pollfd fds[2] = {{p.in.get(), POLLOUT, 0}, {p.out_eof ? -1 : p.out.get(), POLLIN, 0}};
        if (::poll(fds, 2, -1) < 0) {
            if (errno == EINTR) continue;
            throw SystemError("poll on the child's pipes: " + errno_text(errno));
        }
        if (fds[1].revents != 0) p.read_available();
        if (fds[0].revents == 0) continue;
        const ssize_t n = ::write(p.in.get(), data.data() + written, data.size() - written);
        if (n >= 0) {
            written += static_cast<std::size_t>(n);
        } else if (errno != EAGAIN && errno != EINTR) {
            throw SystemError("cannot write to the child's stdin: " + errno_text(errno));
        }
    }
}

std::uint32_t Subprocess::pid() const { return static_cast<std::uint32_t>(impl_->pid); }

std::string find_program(const std::string& name) {
    const std::string path = environment_variable("PATH").value_or("/usr/bin:/bin");
    if (auto found = resolve_program(name, path, PathStyle::posix, is_program)) return *found;
    throw SystemError("cannot start '" + name +
                      "': not found in PATH's absolute folders (the current folder is never searched)");
}

std::string current_executable_path() {
    std::error_code ec;
    const auto path = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) throw SystemError("cannot read /proc/self/exe: " + ec.message());
    return path.string();
}

std::vector<std::string> tied_command(const std::vector<std::string>& argv) {
    if (argv.empty()) throw SystemError("cannot start a process: empty argument list");
    if (!is_program(find_program(argv[0]))) {  // find_program throws, naming where it looked
        throw SystemError("cannot start '" + argv[0] +
                          "': no such executable (not found, or not executable)");
    }
    std::vector<std::string> tied{current_executable_path(), "__exec", "--parent", std::to_string(::getpid()),
                                  "--"};
    tied.insert(tied.end(), argv.begin(), argv.end());
    return tied;
}

// The supervisor between the tracer and the program: the program and everything it starts
// share this process's group, and when the tracer dies (even by SIGKILL: PR_SET_PDEATHSIG sends
// us SIGTERM) the whole group is killed, so a DataLoader's workers, which inherit the program's
// GPU file descriptors and so keep its device memory alive, cannot outlive it either.
int exec_tied(std::uint32_t parent_pid, const std::vector<std::string>& argv) {
    if (argv.empty()) return 127;
    sigset_t watched;
    sigemptyset(&watched);
    for (const int sig : {SIGTERM, SIGINT, SIGHUP, SIGCHLD}) sigaddset(&watched, sig);
    sigset_t old;
    ::pthread_sigmask(SIG_BLOCK, &watched, &old);
#if defined(__linux__)
    ::prctl(PR_SET_PDEATHSIG, SIGTERM);
#endif
    if (parent_pid != 0 && ::getppid() != static_cast<pid_t>(parent_pid)) return 1;  // it is gone already
    std::string program;
    try {
        program = find_program(argv[0]);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pinbench: %s\n", e.what());
        return 127;
    }
    const pid_t child = ::fork();
    if (child < 0) {
        std::fprintf(stderr, "pinbench: fork: %s\n", std::strerror(errno));
        return 127;
    }
    if (child == 0) {
        ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
        std::vector<std::string> args = argv;
        std::vector<char*> ptrs = pointers(args);
        ::execv(program.c_str(), ptrs.data());
        std::fprintf(stderr, "pinbench: cannot start '%s': %s\n", argv[0].c_str(), std::strerror(errno));
        ::_exit(127);
    }
    for (;;) {
        int sig = 0;
        if (::sigwait(&watched, &sig) != 0) continue;
        if (sig == SIGCHLD) {
            int status = 0;
            if (::waitpid(child, &status, WNOHANG) != child) continue;
            if (WIFEXITED(status)) return WEXITSTATUS(status);
            // The program died of a signal: so do we, so the tracer sees the same.
            const int killed_by = WTERMSIG(status);
            ::signal(killed_by, SIG_DFL);
            sigset_t just;
            sigemptyset(&just);
            sigaddset(&just, killed_by);
            ::pthread_sigmask(SIG_UNBLOCK, &just, nullptr);
            ::raise(killed_by);
            return 128 + killed_by;
        }
        ::kill(-::getpgrp(), SIGKILL);  // the tracer is gone or asked us to stop: the group goes, us too
    }
}

void crash_this_process() { std::abort(); }

}  // namespace pinbench
