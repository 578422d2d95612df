#include "pinbench/platform/interrupt.hpp"

#include <windows.h>

#include <atomic>

namespace pinbench {
namespace {

// Written by the console control handler (its own thread), read everywhere.
std::atomic<int> recorded_signal{0};

BOOL WINAPI on_console_event(DWORD event) {
    int sig = 0;
    switch (event) {
        case CTRL_C_EVENT:
            sig = 2;
            break;
        case CTRL_BREAK_EVENT:
            sig = 15;
            break;
        case CTRL_CLOSE_EVENT:
            sig = 1;
            break;
        default:
            return FALSE;  // logoff/shutdown: the default handling
    }
    int none = 0;
    if (!recorded_signal.compare_exchange_strong(none, sig)) {
        ExitProcess(static_cast<UINT>(exit_code_for_signal(sig)));
    }
    if (event == CTRL_CLOSE_EVENT) {
        // Windows ends the process when this handler returns from a close event: give the
        // main thread a few seconds to write what it has.
        Sleep(4000);
    }
    return TRUE;
}

}  // namespace

StopOnSignals::StopOnSignals() { SetConsoleCtrlHandler(on_console_event, TRUE); }

StopOnSignals::~StopOnSignals() { SetConsoleCtrlHandler(on_console_event, FALSE); }

int stop_signal() { return recorded_signal.load(); }

std::string stop_signal_name(int signal) {
    switch (signal) {
        case 2:
            return "CTRL_C";
        case 15:
            return "CTRL_BREAK";
        case 1:
            return "CTRL_CLOSE";
        default:
            return "signal " + std::to_string(signal);
    }
}

void request_stop_for_test(int signal) { recorded_signal = signal; }

void die_with_parent(std::uint32_t) {
    // The parent's Job Object (KILL_ON_JOB_CLOSE) ends its children when the parent's last
    // handle to it closes, whatever ended the parent.
}

}  // namespace pinbench
