// Stopping cleanly when a nightly is cancelled: SIGINT, SIGTERM, SIGHUP (POSIX) and CTRL_C,
// CTRL_BREAK, CTRL_CLOSE (Windows console). While a StopOnSignals lives, the first such signal
// is only recorded: waits return early (Subprocess::wait says `interrupted` and kills the
// child's group or job), and the caller writes what it has and exits with
// exit_code_for_signal(). A second signal ends the process at once (its children die with it:
// die_with_parent). Implemented in harness/src/platform/interrupt_{posix,win32}.cpp. The
// process-wide state is what a signal handler can reach: the recorded signal, and how many
// StopOnSignals are alive.
//
// From the first instruction of main (exit_on_stop_signals), a stop signal outside every
// StopOnSignals ends pinbench at once with its documented exit code and one line on stderr
// ("pinbench: stopped by SIGINT (exit 130)"); inside one it is recorded for the command to end
// cleanly (a partial results file that says where it stopped).
#pragma once

#include <cstdint>
#include <string>

namespace pinbench {

// Called first in main: the handlers, for the whole life of the process (above).
void exit_on_stop_signals();

class StopOnSignals {
public:
    StopOnSignals();   // installs the handlers; a stop signal is now recorded, not an exit
    ~StopOnSignals();  // restores the previous ones
    StopOnSignals(const StopOnSignals&) = delete;
    StopOnSignals& operator=(const StopOnSignals&) = delete;
};

// The signal that asked this process to stop (1 SIGHUP, 2 SIGINT, 15 SIGTERM; Windows console
// events map to these: CTRL_C 2, CTRL_BREAK 15, CTRL_CLOSE 1), or 0.
int stop_signal();

// "SIGINT", "SIGTERM", "SIGHUP" (Windows: "CTRL_C" ...), "signal N".
std::string stop_signal_name(int signal);

// The documented exit code after a stop: 128 + signal (130 SIGINT, 143 SIGTERM, 129 SIGHUP).
inline int exit_code_for_signal(int signal) { return 128 + signal; }

// For a child: end this process when `parent_pid` goes away. Linux: PR_SET_PDEATHSIG (SIGKILL),
// then a check that the parent is still the one given (it may have died before the call), and
// everywhere a thread that exits the process once getppid() changes. Windows: nothing to do
// (children live in the parent's Job Object with KILL_ON_JOB_CLOSE).
void die_with_parent(std::uint32_t parent_pid);

// Test hook: records `signal` as if it had arrived (no handler runs).
void request_stop_for_test(int signal);

}  // namespace pinbench
