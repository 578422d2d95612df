// overhead: GPU memory before, while holding and after freeing `count` host buffers
// (brief experiments 1 and 5).
// Its metrics are the generic ones every kind gets (run_metrics.cpp), allocation costs included.
#include "kinds/kind_support.hpp"
#include "run/measuring_probes.hpp"
#include "scenario/kind_spec.hpp"

namespace pinbench::kinds {
namespace {

RepeatRecord measure(const PlannedRun& run, const Nvml* nvml) {
    RepeatRecord out;
    const auto start = SteadyClock::now();
    auto t = SteadyClock::now();
    Devices devices = open_devices(run.gpus, true);
    out.timings_ms["context"] = ms_between(t, SteadyClock::now());
    const ProbeSet probes = make_measuring_probes(devices.ids, nvml);
    devices.synchronize();
    out.snapshots.push_back(settled_snapshot(probes, "after_context", start));

    t = SteadyClock::now();
    auto buffers = pin_buffers(run.api, run.size, run.count);
    out.timings_ms["alloc"] = ms_between(t, SteadyClock::now());
    // Separate the OS's first-touch time from the driver's pinning time.
    double touch = 0;
    for (const auto& b : buffers) touch += b->first_touch_ms();
    out.timings_ms["first_touch"] = touch;
    out.timings_ms["pin"] = out.timings_ms["alloc"] - touch;
    out.data["backing"] = backing_of(buffers);
    devices.synchronize();
    out.snapshots.push_back(settled_snapshot(probes, "after_alloc", start));

    t = SteadyClock::now();
    devices.use_everywhere(buffers);
    out.timings_ms["first_use"] = ms_between(t, SteadyClock::now());
    out.snapshots.push_back(settled_snapshot(probes, "after_first_use", start));

    t = SteadyClock::now();
    buffers.clear();
    out.timings_ms["free"] = ms_between(t, SteadyClock::now());
    devices.synchronize();
    out.snapshots.push_back(settled_snapshot(probes, "after_free", start));
    return out;
}

}  // namespace

KindSpec overhead() {
    KindSpec kind{"overhead", 1, {}, std::nullopt};
    kind.writes_allocation_costs = true;
    kind.reservation_rule = true;
    kind.measure = measure;
    kind.title =
        "pinned-memory cost per API, size and count: the verdicts and the reservation rule (claims 1, 5, 10, "
        "13)";
    kind.report = ReportPlace::cost_and_rule;
    return kind;
}

}  // namespace pinbench::kinds
