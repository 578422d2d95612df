// The double's device memory, shared by every process of a test: the harness runs repeats in
// child processes and watches the device through NVML from the parent, so what one process
// allocates must show in every other's NVML and cuMemGetInfo, as on a real driver. One file,
// mapped by each process and locked for each change; a process's entry goes when it exits or
// is found dead.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "script.hpp"

namespace pinbench::driver_double {

struct ProcessUse {
    std::int64_t pid = 0;
    std::uint64_t bytes = 0;
};

class DeviceState {
public:
    // Maps the script's state file (created when absent); without a state path, this process's
    // memory only.
    explicit DeviceState(const Script& script);
    ~DeviceState();
    DeviceState(const DeviceState&) = delete;
    DeviceState& operator=(const DeviceState&) = delete;

    // Takes `bytes` of `device` for this process; false (nothing taken) when they are not free.
    bool charge(int device, std::uint64_t bytes);
    void release(int device, std::uint64_t bytes);
    // Takes `bytes` of `device` for this process without listing it in NVML (what a process that
    // only initialised the driver holds); they go when the process leaves.
    bool charge_unlisted(int device, std::uint64_t bytes);
    // A context on `device` lists this process in NVML even before it allocates.
    void open_context(int device);
    void close_context(int device);
    // Reserved plus every live process's bytes.
    std::uint64_t used(int device);
    std::vector<ProcessUse> processes(int device);
    // Adds one to the shared counter `index` (< max_counters) and returns the new count.
    std::uint64_t count_call(std::size_t index);
    // Removes this process's entry (its memory is freed, as the driver does at exit); the CUDA
    // side calls it when it unloads, NVML never does.
    void leave();

    static constexpr std::size_t max_counters = 32;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace pinbench::driver_double
