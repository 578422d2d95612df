// What the shared device state (device_state.cpp) needs of the OS: the state file mapped, an
// exclusive lock over it across processes, and which processes are alive. Platform code:
// device_state_{posix,win32}.cpp. Each stops the process, saying why, when the OS refuses: a test
// must never run against a state the double could not share.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "device_state_layout.hpp"

namespace pinbench::driver_double {

class StateMapping {
public:
    // Maps the Layout in `path` (made, reading as zeros, when absent), or this process's own
    // memory when `path` is empty.
    explicit StateMapping(const std::string& path);
    ~StateMapping();
    StateMapping(const StateMapping&) = delete;
    StateMapping& operator=(const StateMapping&) = delete;

    Layout& layout() { return *layout_; }
    // Exclusive across the processes mapping the file; nothing without a file.
    void lock();
    void unlock();

private:
    struct Os;  // the open file and its mapping
    std::unique_ptr<Os> os_;
    Layout* layout_ = nullptr;
};

std::int64_t current_pid();
// Gone, or ended and not yet reaped: a real driver frees a process's memory when it dies.
bool process_dead(std::int64_t pid);

}  // namespace pinbench::driver_double
