// shared: P processes use one OS shared-memory block, each registering it, against each
// pinning its own buffer (brief claim 12: not necessarily cheaper on WDDM).
#include "kinds/kind_support.hpp"
#include "kinds/worker_group.hpp"
#include "pinbench/platform/shared_memory.hpp"
#include "results/kind_metrics.hpp"
#include "scenario/kind_spec.hpp"

namespace pinbench::kinds {
namespace {

RepeatRecord measure(const PlannedRun& run, const Nvml* nvml) {
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

void derive(const RunRecord&, const OkRepeats& ok, MetricSink& sink) {
    const int p = ok.front()->data.value("processes", 0);
    sink.costs(ok, "shared.device_cost", "contexts", "pinned");
    if (p > 0) sink.costs(ok, "shared.per_process_cost", "contexts", "pinned", p);
}

}  // namespace

KindSpec shared() {
    KindSpec kind{"shared",
                  2,
                  {axis(integer_param("processes", 1, true)),
                   axis(choice_param("variant", {"shared", "private"}, false,
                                     nlohmann::json::array({"shared", "private"})))},
                  Condition{"variant", "shared"}};
    kind.measure = measure;
    kind.derive = derive;
    kind.starts_cuda_processes = true;
    kind.metrics = {
        {"shared.device_cost.<key>", "bytes", higher_is_worse, true, "cost of all processes together"},
        {"shared.per_process_cost.<key>", "bytes", higher_is_worse, true, "cost per process"},
    };
    kind.title = "pinned memory shared between processes (claim 12)";
    return kind;
}

}  // namespace pinbench::kinds
