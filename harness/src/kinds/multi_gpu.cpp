// multi_gpu: one host buffer used by N GPUs; is its cost paid on every GPU? Pinned before or
// after the other contexts exist, with peer access off or on (brief experiment 3).
#include "kinds/kind_support.hpp"
#include "pinbench/cuda/transfers.hpp"
#include "results/kind_metrics.hpp"
#include "run/measuring_probes.hpp"
#include "scenario/kind_spec.hpp"

namespace pinbench::kinds {
namespace {

RepeatRecord measure(const PlannedRun& run, const Nvml* nvml) {
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
        for (const auto& i : nvml_indices_of(devices.ids, *nvml)) {
            indices.push_back(i ? nlohmann::json(*i) : nullptr);
        }
        out.data["nvml_indices"] = indices;
    }
    return out;
}

void derive(const RunRecord& run, const OkRepeats& ok, MetricSink& sink) {
    // Held = what freeing returned, with every context present in both snapshots (for
    // order=before the baseline lacks the later contexts, so it cannot be the reference).
    sink.costs(ok, "multi_gpu.held", "after_free", "after_first_use");
    auto sum = [&](const RepeatRecord& r) -> std::optional<double> {
        double total = 0;
        for (int d = 0; d < run.run.gpus; ++d) {
            // NVML index of CUDA device d as the child matched it (by UUID); older files: d.
            const auto& indices = r.data.value("nvml_indices", nlohmann::json::array());
            if (d < static_cast<int>(indices.size()) && !indices[d].is_number_unsigned()) return std::nullopt;
            const int nvml_index = d < static_cast<int>(indices.size()) ? indices[d].get<int>() : d;
            const auto c = snapshot_cost(r, "after_free", "after_first_use",
                                         "nvml." + std::to_string(nvml_index) + ".used");
            if (!c) return std::nullopt;
            total += *c;
        }
        return total;
    };
    sink.put("multi_gpu.cost_sum.nvml.used", per_repeat(ok, sum));
    sink.put("multi_gpu.cost_per_device.nvml.used",
             per_repeat(ok, [&](const RepeatRecord& r) -> std::optional<double> {
                 const auto s = sum(r);
                 if (!s) return std::nullopt;
                 return *s / run.run.gpus;
             }));
}

}  // namespace

KindSpec multi_gpu() {
    KindSpec kind{"multi_gpu",
                  2,
                  {axis(choice_param("order", {"before", "after"}, false, "after")),
                   axis(choice_param("peer_access", {"on", "off"}, false, "off"))}};
    kind.writes_allocation_costs = true;
    kind.measure = measure;
    kind.derive = derive;
    kind.metrics = {
        {"multi_gpu.held.<key>", "bytes", higher_is_worse, false,
         "what freeing returned, every context present"},
        {"multi_gpu.cost_sum.nvml.used", "bytes", higher_is_worse, true, "cost summed over the GPUs",
         dedicated_budget},
        {"multi_gpu.cost_per_device.nvml.used", "bytes", higher_is_worse, true, "cost per GPU",
         dedicated_budget},
    };
    kind.title = "multi-GPU per-device cost (claim 3)";
    return kind;
}

}  // namespace pinbench::kinds
