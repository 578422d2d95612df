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

// Written by the handler, read everywhere: the only state a signal handler can share.
volatile std::sig_atomic_t recorded_signal = 0;

constexpr int stop_signals[] = {SIGINT, SIGTERM, SIGHUP};
struct sigaction previous[3];

extern "C" void on_stop_signal(int sig) {
    if (recorded_signal != 0) {
        // The second signal: stop now, the way the signal would have stopped us.
        ::signal(sig, SIG_DFL);
        ::raise(sig);
        return;
    }
    recorded_signal = sig;
}

}  // namespace

StopOnSignals::StopOnSignals() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = 0;  // no SA_RESTART: blocking calls return EINTR and their loops look again
    for (int i = 0; i < 3; ++i) ::sigaction(stop_signals[i], &sa, &previous[i]);
}

StopOnSignals::~StopOnSignals() {
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
