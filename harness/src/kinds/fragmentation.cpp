// fragmentation: after pinned churn, is free memory still one contiguous block? The largest
// cudaMalloc block and free memory before and after (brief experiment 8).
#include "kinds/kind_support.hpp"
#include "pinbench/cuda/device_capacity.hpp"
#include "results/kind_metrics.hpp"
#include "scenario/kind_spec.hpp"

namespace pinbench::kinds {
namespace {

RepeatRecord measure(const PlannedRun& run, const Nvml* nvml) {
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

void derive(const RunRecord&, const OkRepeats& ok, MetricSink& sink) {
    auto field = [&](const char* name) {
        return per_repeat(ok, [name](const RepeatRecord& r) { return data_number(r.data, name); });
    };
    auto diff = [&](const char* a, const char* b) {
        return per_repeat(ok, [a, b](const RepeatRecord& r) -> std::optional<double> {
            const auto x = data_number(r.data, a), y = data_number(r.data, b);
            if (!x || !y) return std::nullopt;
            return *x - *y;
        });
    };
    sink.put("fragmentation.largest_before", field("largest_before"));
    sink.put("fragmentation.largest_after", field("largest_after"));
    sink.put("fragmentation.largest_loss", diff("largest_before", "largest_after"));
    sink.put("fragmentation.free_loss", diff("free_before", "free_after"));
}

}  // namespace

KindSpec fragmentation() {
    KindSpec kind{"fragmentation",
                  2,
                  {integer_param("cycles", 1, true), size_param("resolution", false, default_resolution)}};
    kind.quantum_param = "resolution";
    kind.measure = measure;
    kind.derive = derive;
    kind.metrics = {
        {"fragmentation.largest_before", "bytes", higher_is_better, true, "largest block before the cycles",
         dedicated_budget},
        {"fragmentation.largest_after", "bytes", higher_is_better, true, "largest block after them",
         dedicated_budget},
        {"fragmentation.largest_loss", "bytes", higher_is_worse, true, "largest_before - largest_after",
         dedicated_budget},
        {"fragmentation.free_loss", "bytes", higher_is_worse, true, "free memory lost over the cycles",
         dedicated_budget},
    };
    kind.title = "fragmentation before / after churn (claim 8)";
    return kind;
}

}  // namespace pinbench::kinds
