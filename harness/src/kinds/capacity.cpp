// capacity: how much device memory a process can still allocate with P bytes pinned, when
// device memory is nearly full (the question the reservation rule asks; docs/kinds.md).
#include <algorithm>
#include <new>

#include "kinds/kind_support.hpp"
#include "kinds/measure.hpp"
#include "pinbench/device_capacity.hpp"
#include "pinbench/errors.hpp"

namespace pinbench::kinds {

RepeatRecord measure_capacity(const PlannedRun& run, const Nvml* nvml) {
    const std::uint64_t free_target = param_bytes(run, "free_target");
    const std::uint64_t resolution = param_bytes(run, "resolution");
    RepeatRecord out;
    const auto start = SteadyClock::now();
    Devices devices = open_devices(run.gpus, true);
    const ProbeSet probes = all_device_probes(nvml);
    require_free_target_below(devices.contexts.front()->mem_info(), free_target);
    // Reference read speed of ordinary device memory of about the size the search will find
    // (read speed grows with size), before anything is full.
    const double reference_gbps =
        device_read_gbps(std::max<std::uint64_t>(free_target / resolution * resolution, 64ull << 20));
    out.snapshots.push_back(settled_snapshot(probes, "after_context", start));

    auto t = SteadyClock::now();
    auto filler = std::make_unique<DeviceFiller>(free_target, resolution);
    out.timings_ms["fill"] = ms_between(t, SteadyClock::now());
    out.snapshots.push_back(settled_snapshot(probes, "filled", start));
    const std::uint64_t upper = devices.contexts.front()->mem_info().free + resolution;

    t = SteadyClock::now();
    const BlockSearch without = largest_device_block(upper, resolution, true);
    out.timings_ms["bisect_without"] = ms_between(t, SteadyClock::now());

    nlohmann::json data = {{"free_target", free_target},
                           {"resolution", resolution},
                           {"filled_bytes", filler->filled_bytes()},
                           {"free_after_fill", filler->free_after_fill()},
                           {"read_gbps_reference", reference_gbps},
                           {"largest_without", without.largest},
                           {"read_gbps_without", without.read_gbps},
                           {"candidates_without", without.candidates}};
    std::vector<std::unique_ptr<HostBuffer>> pinned;
    try {
        t = SteadyClock::now();
        pinned.push_back(allocate_host_buffer(run.api, run.size));
        out.timings_ms["alloc"] = ms_between(t, SteadyClock::now());
        devices.use_everywhere(pinned);
    } catch (const CudaError& e) {
        // The pin failing with device memory nearly full is a finding, not a crash.
        data["pin_error"] = e.what();
        pinned.clear();
    } catch (const std::bad_alloc&) {
        data["pin_error"] = "host allocation failed (std::bad_alloc)";
        pinned.clear();
    }
    out.snapshots.push_back(settled_snapshot(probes, "pinned", start));
    const std::string intact = filler->intact();
    data["filler_intact"] = intact.empty();
    if (!intact.empty()) data["filler_problem"] = intact;
    if (!pinned.empty()) {
        data["backing"] = backing_of(pinned);
        t = SteadyClock::now();
        const BlockSearch with = largest_device_block(upper, resolution, true);
        out.timings_ms["bisect_with"] = ms_between(t, SteadyClock::now());
        data["largest_with"] = with.largest;
        data["read_gbps_with"] = with.read_gbps;
        data["candidates_with"] = with.candidates;
    }
    pinned.clear();
    filler.reset();
    devices.synchronize();
    out.snapshots.push_back(settled_snapshot(probes, "after_free", start));
    out.data = std::move(data);
    return out;
}

}  // namespace pinbench::kinds
