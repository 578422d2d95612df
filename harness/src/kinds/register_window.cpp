// register_window: register only around each transfer, against keeping the buffer
// registered; the peak cost while registered and the time per transfer (brief experiment 5).
#include "kinds/kind_support.hpp"
#include "kinds/measure.hpp"
#include "pinbench/transfers.hpp"

namespace pinbench::kinds {

RepeatRecord measure_register_window(const PlannedRun& run, const Nvml* nvml) {
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

}  // namespace pinbench::kinds
