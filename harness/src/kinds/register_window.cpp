// register_window: register only around each transfer, against keeping the buffer
// registered; the peak cost while registered and the time per transfer (brief experiment 5).
#include "kinds/kind_support.hpp"
#include "pinbench/cuda/transfers.hpp"
#include "results/kind_metrics.hpp"
#include "scenario/kind_spec.hpp"

namespace pinbench::kinds {
namespace {

RepeatRecord measure(const PlannedRun& run, const Nvml* nvml) {
    const int transfers = param_int(run, "transfers");
    RepeatRecord out;
    const auto start = SteadyClock::now();
    Devices devices = open_devices(1, true);
    const GpuUseWorkspace& ws = *devices.workspaces.front();
    const ProbeSet probes = all_device_probes(nvml);
    // Ordinary page-aligned memory, touched: what the register variants start from.
    auto memory = pin_buffers(ApiVariant{ApiFamily::pageable, flag_none}, run.size, 1);
    out.snapshots.push_back(settled_snapshot(probes, "after_context", start));

    // Kept: register once, every transfer, unregister; the snapshot is taken outside the clock.
    auto t = SteadyClock::now();
    HostRegistration kept(memory.front()->data(), run.size, run.api.flags);
    for (int i = 0; i < transfers; ++i) (void)timed_h2d_copy_ms(memory.front()->data(), run.size, ws);
    double kept_ms = ms_between(t, SteadyClock::now());
    out.snapshots.push_back(settled_snapshot(probes, "registered", start));
    t = SteadyClock::now();
    kept.release();
    kept_ms += ms_between(t, SteadyClock::now());
    devices.synchronize();
    out.snapshots.push_back(settled_snapshot(probes, "after_free", start));

    t = SteadyClock::now();
    for (int i = 0; i < transfers; ++i) {
        HostRegistration window(memory.front()->data(), run.size, run.api.flags);
        (void)timed_h2d_copy_ms(memory.front()->data(), run.size, ws);
    }
    const double windowed_ms = ms_between(t, SteadyClock::now());
    // The kept variant's registration time is spread over its transfers, as a user would see it.
    out.timings_ms["kept_per_transfer"] = kept_ms / transfers;
    out.timings_ms["windowed_per_transfer"] = windowed_ms / transfers;
    out.data = {{"transfers", transfers}};
    return out;
}

void derive(const RunRecord&, const OkRepeats& ok, MetricSink& sink) {
    sink.costs(ok, "register_window.peak", "after_context", "registered");
    sink.put("register_window.time_ratio", per_repeat(ok, [](const RepeatRecord& r) -> std::optional<double> {
                 const auto k = r.timings_ms.find("kept_per_transfer");
                 const auto w = r.timings_ms.find("windowed_per_transfer");
                 if (k == r.timings_ms.end() || w == r.timings_ms.end() || k->second <= 0) {
                     return std::nullopt;
                 }
                 return w->second / k->second;
             }));
}

}  // namespace

KindSpec register_window() {
    KindSpec kind{"register_window", 2, {integer_param("transfers", 1, false, 16)}, Condition{}};
    kind.measure = measure;
    kind.derive = derive;
    // Its own timings come ahead of the generic time.<timing>_ms (the first match wins).
    kind.metrics = {
        {"register_window.peak.<key>", "bytes", higher_is_worse, true, "cost with the window registered"},
        {"time.kept_per_transfer_ms", "ms", higher_is_worse, true, "per transfer, registered once"},
        {"time.windowed_per_transfer_ms", "ms", higher_is_worse, true, "per transfer, registered each time"},
        {"register_window.time_ratio", "ratio", higher_is_worse, true,
         "windowed over kept time per transfer"},
    };
    kind.title = "register window: kept vs registered per transfer (claim 5)";
    return kind;
}

}  // namespace pinbench::kinds
