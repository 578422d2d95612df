// fragmentation: after pinned churn, is free memory still one contiguous block? The largest
// cudaMalloc block and free memory before and after (brief experiment 8).
#include "kinds/kind_support.hpp"
#include "kinds/measure.hpp"
#include "pinbench/device_capacity.hpp"

namespace pinbench::kinds {

RepeatRecord measure_fragmentation(const PlannedRun& run, const Nvml* nvml) {
    const int cycles = param_int(run, "cycles");
    const std::uint64_t resolution = param_bytes(run, "resolution");
    RepeatRecord out;
    const auto start = SteadyClock::now();
    Devices devices = open_devices(run.gpus, true);
    const ProbeSet probes = all_device_probes(nvml);
    out.snapshots.push_back(settled_snapshot(probes, "after_context", start));
    const MemInfo before = devices.contexts.front()->mem_info();
    auto t = SteadyClock::now();
    const BlockSearch largest_before = largest_device_block(before.free + resolution, resolution, false);
    out.timings_ms["bisect_before"] = ms_between(t, SteadyClock::now());
    for (int i = 0; i < cycles; ++i) {
        auto buffers = pin_buffers(run.api, run.size, run.count);
        devices.use_everywhere(buffers);
    }
    devices.synchronize();
    out.snapshots.push_back(settled_snapshot(probes, "after_churn", start));
    const MemInfo after = devices.contexts.front()->mem_info();
    t = SteadyClock::now();
    const BlockSearch largest_after = largest_device_block(after.free + resolution, resolution, false);
    out.timings_ms["bisect_after"] = ms_between(t, SteadyClock::now());
    out.data = {{"cycles", cycles},
                {"resolution", resolution},
                {"free_before", before.free},
                {"free_after", after.free},
                {"largest_before", largest_before.largest},
                {"largest_after", largest_after.largest}};
    return out;
}

}  // namespace pinbench::kinds
