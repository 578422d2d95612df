#include "pinbench/platform/interrupt.hpp"

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <thread>
#if defined(__linux__)
#include <sys/prctl.h>
#endif

namespace pinbench {
namespace {

// Written by the handler, read everywhere: the state a signal handler can share (the signal that
// asked us to stop, and how many StopOnSignals are alive: a signal is then recorded, not an exit).
volatile std::sig_atomic_t recorded_signal = 0;
volatile std::sig_atomic_t recording = 0;

constexpr int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

// One line and the documented exit code, with what a handler may call (write, _exit).
[[noreturn]] void exit_now(int sig) {
    const char* line = sig == SIGINT    ? "pinbench: stopped by SIGINT (exit 130)\n"
                       : sig == SIGTERM ? "pinbench: stopped by SIGTERM (exit 143)\n"
                                        : "pinbench: stopped by SIGHUP (exit 129)\n";
    std::size_t n = 0;
    while (line[n] != '\0') ++n;
    (void)!::write(STDERR_FILENO, line, n);
    ::_exit(exit_code_for_signal(sig));
}

extern "C" void on_stop_signal(int sig) {
    if (recorded_signal != 0) {
        // The second signal: stop now, the way the signal would have stopped us.
        ::signal(sig, SIG_DFL);
        ::raise(sig);
        return;
    }
    if (recording == 0) exit_now(sig);
    recorded_signal = sig;
}

void install(struct sigaction* previous) {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: blocking calls return EINTR and their loops look again
    for (int i = 0; i < 3; ++i) {
        ::sigaction(stop_signals[i], &sa, previous != nullptr ? &previous[i] : nullptr);
    }
}

struct sigaction previous[3];

}  // namespace

void exit_on_stop_signals() { install(nullptr); }

StopOnSignals::StopOnSignals() {
    install(previous);
    recording = recording + 1;
}

StopOnSignals::~StopOnSignals() {
    recording = recording - 1;
    for (int i = 0; i < 3; ++i) ::sigaction(stop_signals[i], &previous[i], nullptr);
}

int stop_signal() { return recorded_signal; }

std::string stop_signal_name(int signal) {
    switch (signal) {
        case SIGINT:
            return "SIGINT";
        case SIGTERM:
            return "SIGTERM";
        case SIGHUP:
            return "SIGHUP";
        default:
            return "signal " + std::to_string(signal);
    }
}

void request_stop_for_test(int signal) { recorded_signal = signal; }

void die_with_parent(std::uint32_t parent_pid) {
#if defined(__linux__)
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
    const auto parent = static_cast<pid_t>(parent_pid);
    if (parent_pid != 0 && ::getppid() != parent) ::_exit(1);  // it died before we could ask
    // Everywhere (and as a second line on Linux): a parent that is gone is noticed within 0.5 s.
    std::thread([parent] {
        for (;;) {
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
            if (::getppid() != parent) ::_exit(1);
        }
    }).detach();
}

}  // namespace pinbench
