// churn: K allocate/free cycles; does usage creep upward, and does it come back after a
// longer wait (lazy reclamation, brief experiment 8)?
#include <algorithm>
#include <thread>

#include "kinds/kind_support.hpp"
#include "results/kind_metrics.hpp"
#include "scenario/kind_spec.hpp"

namespace pinbench::kinds {
namespace {

RepeatRecord measure(const PlannedRun& run, const Nvml* nvml) {
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

void derive(const RunRecord&, const OkRepeats& ok, MetricSink& sink) {
    const int cycles = ok.front()->data.value("cycles", 0);
    if (cycles < 1) return;
    const std::string last = "cycle_" + std::to_string(cycles);
    for (const std::string& key : memory_keys(ok)) {
        sink.put("churn.creep." + key,
                 per_repeat(ok,
                            [&](const RepeatRecord& r) -> std::optional<double> {
                                const auto a = snapshot_cost(r, "after_context", "cycle_1", key);
                                const auto b = snapshot_cost(r, "after_context", last, key);
                                if (!a || !b) return std::nullopt;
                                return *b - *a;
                            }),
                 key);
        sink.put("churn.max." + key,
                 per_repeat(ok,
                            [&](const RepeatRecord& r) -> std::optional<double> {
                                std::optional<double> highest;
                                for (int i = 1; i <= cycles; ++i) {
                                    const auto c =
                                        snapshot_cost(r, "after_context", "cycle_" + std::to_string(i), key);
                                    if (!c) return std::nullopt;
                                    highest = std::max(highest.value_or(*c), *c);
                                }
                                return highest;
                            }),
                 key);
    }
    sink.costs(ok, "churn.residual_after_wait", "after_context", "final");
}

}  // namespace

KindSpec churn() {
    KindSpec kind{"churn",
                  2,
                  {integer_param("cycles", 1, true),
                   axis(choice_param("settle", {"immediate", "settled"}, false,
                                     nlohmann::json::array({"immediate", "settled"}))),
                   number_param("final_wait_s", 0, false, false, 2.0)}};
    kind.measure = measure;
    kind.derive = derive;
    kind.metrics = {
        {"churn.creep.<key>", "bytes", higher_is_worse, true, "cost growth over the cycles"},
        {"churn.max.<key>", "bytes", higher_is_worse, true, "the largest cost seen"},
        {"churn.residual_after_wait.<key>", "bytes", higher_is_worse, true, "left after the final wait"},
    };
    kind.title = "churn trace: allocate/free cycles (claim 8)";
    kind.charts = {"churn"};
    return kind;
}

}  // namespace pinbench::kinds
