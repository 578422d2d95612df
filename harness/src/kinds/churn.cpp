// churn: K allocate/free cycles; does usage creep upward, and does it come back after a
// longer wait (lazy reclamation, brief experiment 8)?
#include <thread>

#include "kinds/kind_support.hpp"
#include "kinds/measure.hpp"

namespace pinbench::kinds {

RepeatRecord measure_churn(const PlannedRun& run, const Nvml* nvml) {
    const int cycles = param_int(run, "cycles");
    const bool settle = param_choice(run, "settle") == "settled";
    const double final_wait_s = param_number(run, "final_wait_s");
    RepeatRecord out;
    const auto start = SteadyClock::now();
    Devices devices = open_devices(run.gpus, true);
    const ProbeSet probes = all_device_probes(nvml);
    out.snapshots.push_back(settled_snapshot(probes, "after_context", start));
    for (int i = 1; i <= cycles; ++i) {
        auto buffers = pin_buffers(run.api, run.size, run.count);
        devices.use_everywhere(buffers);
        buffers.clear();
        devices.synchronize();
        const std::string label = "cycle_" + std::to_string(i);
        out.snapshots.push_back(settle ? settled_snapshot(probes, label, start)
                                       : immediate_snapshot(probes, label, start));
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(final_wait_s));
    out.snapshots.push_back(settled_snapshot(probes, "final", start));
    out.data = {
        {"cycles", cycles}, {"settle", settle ? "settled" : "immediate"}, {"final_wait_s", final_wait_s}};
    return out;
}

}  // namespace pinbench::kinds
