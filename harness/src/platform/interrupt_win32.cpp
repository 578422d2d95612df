#include "pinbench/platform/interrupt.hpp"

#include <windows.h>

#include <atomic>
#include <string>

namespace pinbench {
namespace {

// Written by the console control handler (its own thread), read everywhere: the signal that
// asked us to stop, and how many StopOnSignals are alive (a signal is then recorded, not an exit).
std::atomic<int> recorded_signal{0};
std::atomic<int> recording{0};

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
    if (recording.load() == 0) {
        const std::string line = "pinbench: stopped by " + stop_signal_name(sig) + " (exit " +
                                 std::to_string(exit_code_for_signal(sig)) + ")\n";
        DWORD written = 0;
        WriteFile(GetStdHandle(STD_ERROR_HANDLE), line.data(), static_cast<DWORD>(line.size()), &written,
                  nullptr);
        ExitProcess(static_cast<UINT>(exit_code_for_signal(sig)));
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

void exit_on_stop_signals() { SetConsoleCtrlHandler(on_console_event, TRUE); }

StopOnSignals::StopOnSignals() {
    SetConsoleCtrlHandler(on_console_event, TRUE);
    ++recording;
}

StopOnSignals::~StopOnSignals() {
    --recording;
    SetConsoleCtrlHandler(on_console_event, FALSE);
}

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
