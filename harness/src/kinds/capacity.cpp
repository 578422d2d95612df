// capacity: how much device memory a process can still allocate with P bytes pinned, when
// device memory is nearly full (the question the reservation rule asks; docs/kinds.md).
#include <algorithm>
#include <new>
#include <optional>
#include <string>

#include "kinds/kind_support.hpp"
#include "pinbench/cuda/device_capacity.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "results/kind_metrics.hpp"
#include "scenario/kind_spec.hpp"

namespace pinbench::kinds {
namespace {

// The fill needs free_target below what device 0 has free once a context exists.
std::optional<std::string> waive(const PlannedRun& run, const Machine& machine) {
    if (!machine.device0) return std::nullopt;
    return free_target_not_below(*machine.device0, param_bytes(run, "free_target"));
}

RepeatRecord measure(const PlannedRun& run, const Nvml* nvml) {
    const std::uint64_t free_target = param_bytes(run, "free_target");
    const std::uint64_t resolution = param_bytes(run, "resolution");
    RepeatRecord out;
    const auto start = SteadyClock::now();
    Devices devices = open_devices(run.gpus, true);
    const ProbeSet probes = all_device_probes(nvml);
    throw_if_waived(waive(run, with_device0(run, devices)));
    // Reference read speed of ordinary device memory of about the size the search will find
    // (read speed grows with size), before anything is full.
    const double reference_gbps =
        device_read_gbps(std::max<std::uint64_t>(free_target / resolution * resolution, 64ull << 20));
    out.snapshots.push_back(settled_snapshot(probes, "after_context", start));

    auto t = SteadyClock::now();
    auto filler = std::make_unique<DeviceFiller>(free_target, resolution);
    out.timings_ms["fill"] = ms_between(t, SteadyClock::now());
    out.snapshots.push_back(settled_snapshot(probes, "filled", start));
    const std::uint64_t upper = devices.contexts.front()->mem_info().free + resolution;

    t = SteadyClock::now();
    const BlockSearch without = largest_device_block(upper, resolution, true);
    out.timings_ms["bisect_without"] = ms_between(t, SteadyClock::now());

    nlohmann::json data = {{"free_target", free_target},
                           {"resolution", resolution},
                           {"filled_bytes", filler->filled_bytes()},
                           {"free_after_fill", filler->free_after_fill()},
                           {"read_gbps_reference", reference_gbps},
                           {"largest_without", without.largest},
                           {"read_gbps_without", without.read_gbps},
                           {"candidates_without", without.candidates}};
    std::vector<std::unique_ptr<HostBuffer>> pinned;
    try {
        t = SteadyClock::now();
        pinned.push_back(allocate_host_buffer(run.api, run.size));
        out.timings_ms["alloc"] = ms_between(t, SteadyClock::now());
        devices.use_everywhere(pinned);
    } catch (const CudaError& e) {
        // The pin failing with device memory nearly full is a finding, not a crash.
        data["pin_error"] = e.what();
        pinned.clear();
    } catch (const std::bad_alloc&) {
        data["pin_error"] = "host allocation failed (std::bad_alloc)";
        pinned.clear();
    }
    out.snapshots.push_back(settled_snapshot(probes, "pinned", start));
    const std::string intact = filler->intact();
    data["filler_intact"] = intact.empty();
    if (!intact.empty()) data["filler_problem"] = intact;
    if (!pinned.empty()) {
        data["backing"] = backing_of(pinned);
        t = SteadyClock::now();
        const BlockSearch with = largest_device_block(upper, resolution, true);
        out.timings_ms["bisect_with"] = ms_between(t, SteadyClock::now());
        data["largest_with"] = with.largest;
        data["read_gbps_with"] = with.read_gbps;
        data["candidates_with"] = with.candidates;
    }
    pinned.clear();
    filler.reset();
    devices.synchronize();
    out.snapshots.push_back(settled_snapshot(probes, "after_free", start));
    out.data = std::move(data);
    return out;
}

void derive(const RunRecord& run, const OkRepeats& ok, MetricSink& sink) {
    // Repeats whose pin failed have no "with" side; they show in pin_failed instead.
    OkRepeats pinned;
    for (const RepeatRecord* r : ok) {
        if (!r->data.contains("pin_error")) pinned.push_back(r);
    }
    sink.put("capacity.pin_failed", per_repeat(ok, [](const RepeatRecord& r) -> std::optional<double> {
                 return r.data.contains("pin_error") ? 1.0 : 0.0;
             }));
    sink.put("capacity.largest_without",
             per_repeat(ok, [](const RepeatRecord& r) { return data_number(r.data, "largest_without"); }));
    sink.put("capacity.largest_with",
             per_repeat(pinned, [](const RepeatRecord& r) { return data_number(r.data, "largest_with"); }));
    auto loss = [](const RepeatRecord& r) -> std::optional<double> {
        const auto a = data_number(r.data, "largest_without"), b = data_number(r.data, "largest_with");
        if (!a || !b) return std::nullopt;
        return *a - *b;
    };
    sink.put("capacity.loss", per_repeat(pinned, loss));
    const double gib = static_cast<double>(run.run.size) / bytes_per_gib;
    sink.put("capacity.loss_per_gib", per_repeat(pinned, [&](const RepeatRecord& r) -> std::optional<double> {
                 const auto l = loss(r);
                 if (!l || gib <= 0) return std::nullopt;
                 return *l / gib;
             }));
    sink.put("capacity.read_ratio", per_repeat(ok, [](const RepeatRecord& r) -> std::optional<double> {
                 const auto ref = data_number(r.data, "read_gbps_reference");
                 const auto a = data_number(r.data, "read_gbps_without");
                 if (!ref || !a || *ref <= 0) return std::nullopt;
                 const auto b = data_number(r.data, "read_gbps_with");
                 return std::min(*a, b.value_or(*a)) / *ref;
             }));
}

}  // namespace

KindSpec capacity() {
    KindSpec kind{"capacity",
                  2,
                  {size_param("free_target", true), size_param("resolution", false, default_resolution)}};
    kind.reservation_rule = true;
    kind.quantum_param = "resolution";
    kind.waive = waive;
    kind.measure = measure;
    kind.derive = derive;
    kind.metrics = {
        {"capacity.largest_without", "bytes", higher_is_better, true,
         "largest cudaMalloc block, nothing pinned", dedicated_budget},
        {"capacity.largest_with", "bytes", higher_is_better, true,
         "largest cudaMalloc block with the buffer pinned", dedicated_budget},
        {"capacity.loss", "bytes", higher_is_worse, true, "largest_without - largest_with", dedicated_budget},
        {"capacity.loss_per_gib", "bytes", higher_is_worse, true, "loss per pinned GiB", dedicated_budget},
        {"capacity.read_ratio", "ratio", higher_is_better, true,
         "read speed of the block found vs ordinary memory"},
        {"capacity.pin_failed", "count", neither_direction, true, "repeats whose pin failed"},
    };
    kind.title = "capacity: the largest cudaMalloc block with and without pinning (claims 10, 14)";
    return kind;
}

}  // namespace pinbench::kinds
