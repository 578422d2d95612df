// Waiting for memory readings to stop moving, instead of fixed sleeps.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "pinbench/cuda/nvml.hpp"
#include "pinbench/probes/probe.hpp"
#include "pinbench/probes/snapshot.hpp"

namespace pinbench {

using SteadyClock = std::chrono::steady_clock;

// A time point as nanoseconds of the machine-wide monotonic clock (comparable across processes).
inline std::int64_t steady_ns(SteadyClock::time_point t) {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

struct SettleOptions {
    std::chrono::milliseconds interval{5};
    int equal_reads = 3;  // consecutive identical reads that count as stable
    std::chrono::milliseconds limit{2000};
};

// Reads every probe until `equal_reads` consecutive reads agree on every available key (or the
// limit passes: stable = false). Records the time since `start` and how long settling took.
Snapshot settled_snapshot(const ProbeSet& probes, std::string label, SteadyClock::time_point start,
                          const SettleOptions& options = {});

// The parent's view of the devices between repeats, through NVML only (no CUDA context).
struct DeviceLevel {
    std::vector<std::int64_t> used;        // per device, bytes (-1 unknown)
    std::vector<std::uint32_t> processes;  // pids of compute processes on those devices, sorted
};
DeviceLevel read_device_level(const Nvml& nvml, const std::vector<unsigned>& devices);

struct DeviceWait {
    double waited_ms = 0;
    bool settled = true;
    std::string note;  // why not settled
};
// Waits until every device's used memory is within `tolerance` of `baseline` and the list of
// compute processes equals the baseline's, polling up to `limit`.
DeviceWait wait_for_device_level(const Nvml& nvml, const std::vector<unsigned>& devices,
                                 const DeviceLevel& baseline, std::int64_t tolerance,
                                 std::chrono::milliseconds limit);

// Reads the devices' level until `equal_reads` consecutive reads agree (their usage moved with
// nothing of ours measuring: the driver holder started or stopped, run/driver_hold.hpp), polling
// up to `limit`; the last read, and the wait (settled false when the reads never agreed).
struct SettledLevel {
    DeviceLevel level;
    DeviceWait wait;
};
SettledLevel settled_device_level(const Nvml& nvml, const std::vector<unsigned>& devices,
                                  std::chrono::milliseconds limit, int equal_reads = 5);

}  // namespace pinbench
