// shared: P processes use one OS shared-memory block, each registering it, against each
// pinning its own buffer (brief claim 12: not necessarily cheaper on WDDM).
#include "kinds/kind_support.hpp"
#include "kinds/measure.hpp"
#include "kinds/worker_group.hpp"
#include "pinbench/shared_memory.hpp"

namespace pinbench::kinds {

RepeatRecord measure_shared(const PlannedRun& run, const Nvml* nvml) {
    const int processes = param_int(run, "processes");
    const bool shared = param_choice(run, "variant") == "shared";
    RepeatRecord out;
    const auto start = SteadyClock::now();
    Devices devices = open_devices(1, false);
    const ProbeSet probes = all_device_probes(nvml);
    out.snapshots.push_back(settled_snapshot(probes, "after_context", start));
    std::vector<std::uint32_t> worker_pids;
    std::optional<SharedMemory> block;
    if (shared) block.emplace(SharedMemory::create(run.size));
    {
        WorkerGroup group(processes, WorkerSpec{run.api, run.size, true, shared ? block->name() : ""},
                          worker_step_timeout(run.timeout_s));
        worker_pids = group.pids();
        group.prepare_all();  // "contexts" holds the workspaces too: the cost is the pin alone
        out.snapshots.push_back(settled_snapshot(probes, "contexts", start));
        group.pin_all();
        out.snapshots.push_back(settled_snapshot(probes, "pinned", start));
        group.release_all();
    }
    devices.synchronize();
    out.snapshots.push_back(settled_snapshot(probes, "after_free", start));
    out.data = {
        {"processes", processes}, {"variant", shared ? "shared" : "private"}, {"worker_pids", worker_pids}};
    return out;
}

}  // namespace pinbench::kinds
