// The device side of a trace: NVML samples taken from outside the traced program while it
// runs, and the device cost they show at the pinned peak (docs/trace.md).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "trace/pinned_timeline.hpp"

namespace pinbench::trace {

struct DeviceReading {
    unsigned nvml_index = 0;
    std::optional<std::uint64_t> used;                 // device-level used bytes
    std::map<std::uint32_t, std::uint64_t> processes;  // per-process used bytes (compute processes)
    bool processes_known = false;                      // the per-process list could be read
};

struct DeviceSample {
    std::int64_t t_ns = 0;  // the steady clock of the calls' t_ns
    std::vector<DeviceReading> devices;
    // NVML reads device memory and the process list one after the other; a sample is consistent
    // when the process list read again after the device figure was the same (a context being
    // made moves both by hundreds of MiB between two reads). Inconsistent samples are not used.
    bool consistent = true;
};

// The cost one device shows at the peak: the change in device-level used from the baseline
// (the last sample before the first pinning call) minus the change in the traced processes'
// own per-process figure, which holds their contexts and device allocations but not the cost of
// pinning (docs/trace.md). Median over the samples taken while the peak was held.
struct DeviceCostAtPeak {
    unsigned nvml_index = 0;
    std::optional<std::int64_t> cost;  // empty: could not be measured; `why` says why
    std::int64_t device_delta = 0;
    std::int64_t own_delta = 0;
    int samples = 0;
    std::string why;
    std::vector<std::string> disturbances;  // other processes whose device memory changed meanwhile
};

struct PeakCost {
    std::int64_t baseline_t_ns = 0;
    bool baseline_before_first_pin = false;
    // No consistent sample showed a traced process before the first pinning call: the baseline
    // then predates the program's context, whose device-level overhead beyond its per-process
    // figure (about 5.6 MiB for a PyTorch context on the H200) lands in the cost.
    bool baseline_before_context = false;
    std::vector<DeviceCostAtPeak> devices;
};

PeakCost cost_at_peak(const PinnedTimeline& timeline, const std::vector<PinCall>& calls,
                      const std::vector<DeviceSample>& samples, const std::set<std::uint32_t>& traced_pids,
                      std::int64_t end_ns);

}  // namespace pinbench::trace
