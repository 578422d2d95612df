// multi_gpu: one host buffer used by N GPUs; is its cost paid on every GPU? Pinned before or
// after the other contexts exist, with peer access off or on (brief experiment 3).
#include "kinds/kind_support.hpp"
#include "kinds/measure.hpp"
#include "pinbench/transfers.hpp"
#include "run/measuring_probes.hpp"

namespace pinbench::kinds {

RepeatRecord measure_multi_gpu(const PlannedRun& run, const Nvml* nvml) {
    const std::string order = param_choice(run, "order");
    const bool peer = param_choice(run, "peer_access") == "on";
    RepeatRecord out;
    const auto start = SteadyClock::now();
    // NVML reads every device, with or without a context here; cudaMemGetInfo only device 0.
    require_devices(run.gpus);
    Devices devices = open_devices(order == "before" ? 1 : run.gpus, true);
    const ProbeSet probes = all_device_probes(nvml);
    if (peer && order != "before") enable_peer_access(devices.ids);
    out.snapshots.push_back(settled_snapshot(probes, "after_context", start));

    auto buffers = pin_buffers(run.api, run.size, run.count);
    devices.synchronize();
    out.snapshots.push_back(settled_snapshot(probes, "after_alloc", start));
    if (order == "before") {
        // The other contexts appear while the buffer exists: does the driver map it there too?
        for (int d = 1; d < run.gpus; ++d) devices.open(d, true);
        if (peer) enable_peer_access(devices.ids);
        devices.synchronize();
        out.snapshots.push_back(settled_snapshot(probes, "after_other_contexts", start));
    }
    devices.use_everywhere(buffers);
    out.snapshots.push_back(settled_snapshot(probes, "after_first_use", start));
    buffers.clear();
    devices.synchronize();
    out.snapshots.push_back(settled_snapshot(probes, "after_free", start));
    out.data = {{"order", order}, {"peer_access", peer}, {"devices_with_context", devices.ids}};
    if (nvml != nullptr) {
        // The NVML index of each used GPU: its nvml.<i>.* keys (CUDA_VISIBLE_DEVICES reorders them).
        nlohmann::json indices = nlohmann::json::array();
        for (const auto& i : nvml_indices_of(devices.ids, *nvml))
            indices.push_back(i ? nlohmann::json(*i) : nullptr);
        out.data["nvml_indices"] = indices;
    }
    return out;
}

}  // namespace pinbench::kinds
