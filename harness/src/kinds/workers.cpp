// workers: DataLoader-style worker processes (brief claim 11). per_process: every worker has
// its own context and pins its own buffer, and the context's cost is measured apart from the
// pinned cost. framework: one process pins prefetch_factor x N batches through a caching
// host allocator (as PyTorch does) while N producers without CUDA make the data.
#include <algorithm>
#include <cstring>

#include "kinds/caching_host_allocator.hpp"
#include "kinds/kind_support.hpp"
#include "kinds/worker_group.hpp"
#include "pinbench/cuda/transfers.hpp"
#include "results/kind_metrics.hpp"
#include "scenario/kind_spec.hpp"

namespace pinbench::kinds {
namespace {

void per_process(const PlannedRun& run, int n, const ProbeSet& probes, SteadyClock::time_point start,
                 RepeatRecord& out) {
    auto t = SteadyClock::now();
    WorkerGroup group(n, WorkerSpec{run.api, run.size, true, {}}, worker_step_timeout(run.timeout_s));
    out.timings_ms["contexts"] = ms_between(t, SteadyClock::now());
    out.data["worker_pids"] = group.pids();
    out.snapshots.push_back(settled_snapshot(probes, "contexts", start));  // contexts alone
    group.prepare_all();
    out.snapshots.push_back(settled_snapshot(probes, "workspaces", start));  // + each worker's workspace
    t = SteadyClock::now();
    group.pin_all();
    out.timings_ms["pin"] = ms_between(t, SteadyClock::now());
    out.snapshots.push_back(settled_snapshot(probes, "pinned", start));
    group.release_all();
}

void framework(const PlannedRun& run, int n, Devices& devices, const ProbeSet& probes,
               SteadyClock::time_point start, RepeatRecord& out) {
    const int prefetch = param_int(run, "prefetch_factor");
    WorkerGroup producers(n, WorkerSpec{run.api, run.size, false, {}}, worker_step_timeout(run.timeout_s));
    out.data["worker_pids"] = producers.pids();
    out.snapshots.push_back(settled_snapshot(probes, "contexts", start));
    CachingHostAllocator cache(
        [&](std::size_t bytes) { return std::move(pin_buffers(run.api, bytes, 1).front()); });
    std::vector<CachingHostAllocator::Block> in_flight;
    in_flight.reserve(static_cast<std::size_t>(prefetch) * static_cast<std::size_t>(n));
    for (int i = 0; i < prefetch * n; ++i) in_flight.push_back(cache.acquire(run.size));
    for (const auto& b : in_flight) {
        std::memset(b.data(), 0x42, run.size);  // the batch arrives from a producer
        (void)timed_h2d_copy_ms(b.data(), run.size, *devices.workspaces.front());
    }
    devices.synchronize();
    out.snapshots.push_back(settled_snapshot(probes, "pinned", start));
    out.data["batches_in_flight"] = prefetch * n;
    out.data["framework_pinned_bytes"] = cache.pinned_bytes();
    out.data["framework_allocations"] = cache.allocations();
    for (auto& b : in_flight) cache.release(std::move(b));
    in_flight.clear();
    producers.release_all();
}

RepeatRecord measure(const PlannedRun& run, const Nvml* nvml) {
    const int n = param_int(run, "workers");
    const std::string variant = param_choice(run, "variant");
    RepeatRecord out;
    const auto start = SteadyClock::now();
    Devices devices = open_devices(1, true);
    const ProbeSet probes = all_device_probes(nvml);
    out.snapshots.push_back(settled_snapshot(probes, "after_context", start));
    out.data = {{"workers", n}, {"variant", variant}};
    if (variant == "per_process") {
        per_process(run, n, probes, start, out);
    } else {
        framework(run, n, devices, probes, start, out);
    }
    devices.synchronize();
    out.snapshots.push_back(settled_snapshot(probes, "after_free", start));
    return out;
}

void derive(const RunRecord&, const OkRepeats& ok, MetricSink& sink) {
    const nlohmann::json& first = ok.front()->data;
    const int n = first.value("workers", 0);
    if (first.value("variant", "") == "framework") {
        sink.put("workers.framework_pinned_bytes", per_repeat(ok, [](const RepeatRecord& r) {
                     return data_number(r.data, "framework_pinned_bytes");
                 }));
        sink.costs(ok, "workers.framework_cost", "contexts", "pinned");
        return;
    }
    if (n <= 0) return;  // no workers: nothing per worker (never a 0)
    // Since results version 3 the context is read alone, before each worker's GPU-use workspace
    // ("workspaces"); older files have the workspace inside "contexts", a different quantity under
    // its own name, so a compare never pools the two (589.6 against 523.6 MiB on the H200).
    const bool apart = !ok.empty() && std::any_of(ok.front()->snapshots.begin(), ok.front()->snapshots.end(),
                                                  [](const Snapshot& s) { return s.label == "workspaces"; });
    sink.costs(ok, apart ? "workers.context_per_worker" : "workers.context_and_workspace_per_worker",
               "after_context", "contexts", n);
    if (apart) sink.costs(ok, "workers.workspace_per_worker", "contexts", "workspaces", n);
    sink.costs(ok, "workers.pinned_per_worker", apart ? "workspaces" : "contexts", "pinned", n);
}

}  // namespace

KindSpec workers() {
    KindSpec kind{"workers",
                  2,
                  {axis(integer_param("workers", 0, true)),
                   axis(choice_param("variant", {"per_process", "framework"}, false, "per_process")),
                   when(integer_param("prefetch_factor", 1, false, 2), "variant", "framework")}};
    kind.measure = measure;
    kind.derive = derive;
    kind.starts_cuda_processes = true;
    kind.metrics = {
        {"workers.context_per_worker.<key>", "bytes", higher_is_worse, true, "a worker's CUDA context"},
        {"workers.workspace_per_worker.<key>", "bytes", higher_is_worse, true,
         "a worker's GPU-use workspace"},
        {"workers.context_and_workspace_per_worker.<key>", "bytes", higher_is_worse, false,
         "a worker's context and workspace together (results before version 3)"},
        {"workers.pinned_per_worker.<key>", "bytes", higher_is_worse, true, "a worker's pinned buffer"},
        {"workers.framework_pinned_bytes", "bytes", higher_is_worse, true,
         "framework: bytes the allocator pinned", host_budget},
        {"workers.framework_cost.<key>", "bytes", higher_is_worse, true, "framework: their device cost"},
    };
    kind.title = "worker scaling: context cost and pinned cost per worker (claim 11)";
    kind.charts = {"workers"};
    return kind;
}

}  // namespace pinbench::kinds
