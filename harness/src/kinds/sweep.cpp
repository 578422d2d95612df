// sweep: the cost as a curve over size or over the number of buffers held, and the largest
// size an api can pin (brief experiment 2; docs/kinds.md).
#include <algorithm>
#include <new>

#include "kinds/kind_support.hpp"
#include "kinds/measure.hpp"
#include "pinbench/device_capacity.hpp"
#include "pinbench/errors.hpp"
#include "pinbench/host_memory.hpp"
#include "pinbench/scenario.hpp"
#include "scenario/kinds.hpp"

namespace pinbench::kinds {
namespace {

// The sizes the scenario parser counted and admitted (scenario/kinds.hpp), so the curve
// measured is the one checked.
std::vector<std::uint64_t> curve_sizes(const PlannedRun& run) {
    const std::uint64_t step = param_bytes_or(run, "step", 0);  // 0: by factor (a step is > 0)
    return size_curve_sizes(param_bytes(run, "start"), param_bytes(run, "stop"), step,
                            step != 0 ? 0.0 : param_number(run, "factor"), max_size_curve_points);
}

void size_curve(const PlannedRun& run, Devices& devices, const ProbeSet& probes,
                SteadyClock::time_point start, RepeatRecord& out) {
    nlohmann::json points = nlohmann::json::array();
    for (std::uint64_t size : curve_sizes(run)) {
        auto buffers = pin_buffers(run.api, size, 1);
        devices.use_everywhere(buffers);
        out.snapshots.push_back(settled_snapshot(probes, "size_" + std::to_string(size), start));
        buffers.clear();
        devices.synchronize();
        out.snapshots.push_back(settled_snapshot(probes, "freed_" + std::to_string(size), start));
        points.push_back(size);
    }
    out.data["sizes"] = points;
}

void count_curve(const PlannedRun& run, Devices& devices, const ProbeSet& probes,
                 SteadyClock::time_point start, RepeatRecord& out) {
    const int k_max = param_int(run, "max_count");
    std::vector<std::unique_ptr<HostBuffer>> held;
    for (int k = 1; k <= k_max; ++k) {
        auto one = pin_buffers(run.api, run.size, 1);
        devices.use_everywhere(one);
        held.push_back(std::move(one.front()));
        out.snapshots.push_back(settled_snapshot(probes, "count_" + std::to_string(k), start));
    }
    held.clear();
    devices.synchronize();
    out.snapshots.push_back(settled_snapshot(probes, "after_free", start));
    out.data["max_count"] = k_max;
}

// Pins `bytes` and copies one chunk from it; the error text when that fails.
std::string try_pin(ApiVariant api, std::uint64_t bytes, Devices& devices) {
    try {
        auto b = allocate_host_buffer(api, bytes);
        // Usable, not just returned: the GPU copies from its start.
        std::vector<std::unique_ptr<HostBuffer>> one;
        one.push_back(std::move(b));
        devices.use_everywhere(one);
        return {};
    } catch (const CudaError& e) {
        return e.what();
    } catch (const std::bad_alloc&) {
        return "host allocation failed (std::bad_alloc)";
    }
}

// The largest size the api pins, bisected in 64 MiB units below `cap` (the cap tried first: on
// most machines it simply pins). Optionally with device memory filled first until
// `free_target` is left, so that the search shows whether pinning is bounded by free VRAM
// (reported on WDDM), and with the run's host limit enforced by the OS so that a pin above it
// fails in the API itself (the failure path, on any machine).
void max_pinnable(const PlannedRun& run, Devices& devices, const ProbeSet& probes,
                  SteadyClock::time_point start, RepeatRecord& out) {
    const std::uint64_t cap = param_bytes(run, "cap");
    const double limit_s = param_number(run, "time_limit_s");
    const std::uint64_t host_limit = param_bytes_or(run, "host_limit", cap);
    const bool enforce = param_choice_or(run, "enforce_host_limit", "off") == "on";
    const std::uint64_t unit = 64ull << 20;
    nlohmann::json& data = out.data;
    const nlohmann::json target = run.params.contains("free_target") ? run.params["free_target"] : "all";
    data["free_target"] = target;
    data["cap"] = cap;
    data["host_limit"] = host_limit;
    data["enforce_host_limit"] = enforce;
    if (const auto ram = host_ram_total()) data["host_ram_total"] = *ram;

    std::unique_ptr<DeviceFiller> filler;
    if (target.is_number_unsigned()) {
        const std::uint64_t free_target = target.get<std::uint64_t>();
        require_free_target_below(devices.contexts.front()->mem_info(), free_target);
        filler = std::make_unique<DeviceFiller>(free_target, param_bytes_or(run, "resolution", 2ull << 20));
        out.snapshots.push_back(settled_snapshot(probes, "filled", start));
    }
    data["filled_bytes"] = filler ? filler->filled_bytes() : 0;
    data["free_before"] = devices.contexts.front()->mem_info().free;

    // Never more than the run may pin: the host limit bounds the search, or (enforced) the OS
    // refuses above it, and then the cap may stand above the limit to make that failure happen.
    const std::uint64_t cap_effective = enforce ? cap : std::min(cap, host_limit);
    data["cap_effective"] = cap_effective;
    if (enforce) {
        std::string why;
        const auto limit = limit_address_space(host_limit, &why);
        if (!limit) throw UnsupportedError(why);
        data["address_space_limit"] = *limit;
    }

    const auto t0 = SteadyClock::now();
    nlohmann::json tried = nlohmann::json::array();
    std::string stopped_by = try_pin(run.api, cap_effective, devices);
    tried.push_back({{"bytes", cap_effective}, {"error", stopped_by}});
    std::uint64_t best = cap_effective;
    bool timed_out = false;
    if (!stopped_by.empty()) {
        std::uint64_t lo = 0, hi = cap_effective / unit;  // units of 64 MiB: lo pins, hi does not
        while (hi - lo > 1) {
            if (ms_between(t0, SteadyClock::now()) > limit_s * 1000) {
                timed_out = true;
                break;
            }
            const std::uint64_t mid = lo + (hi - lo) / 2;
            const std::string err = try_pin(run.api, mid * unit, devices);
            tried.push_back({{"bytes", mid * unit}, {"error", err}});
            if (err.empty()) {
                lo = mid;
            } else {
                hi = mid;
                stopped_by = err;
            }
        }
        best = lo * unit;
    }
    out.timings_ms["search"] = ms_between(t0, SteadyClock::now());
    data["max_pinnable"] = best;
    data["capped"] = stopped_by.empty();
    data["timed_out"] = timed_out;
    data["stopped_by"] = stopped_by;
    data["tried"] = tried;
    data["free_after"] = devices.contexts.front()->mem_info().free;
    // Practitioners report that on Windows one failed pin breaks later pins in the process.
    if (!stopped_by.empty()) {
        const std::string small = try_pin(run.api, unit, devices);
        data["small_after_failure"] = {{"bytes", unit}, {"ok", small.empty()}, {"error", small}};
    }
    // The probes (DXGI LOCAL / NON_LOCAL budgets and usage on Windows) with the largest success
    // held again: the search itself holds each candidate only while it is used.
    if (best > 0) {
        try {
            auto held = pin_buffers(run.api, best, 1);
            devices.use_everywhere(held);
            out.snapshots.push_back(settled_snapshot(probes, "at_max_pinnable", start));
        } catch (const UnsupportedError& e) {
            data["at_max_pinnable_error"] = e.what();
        }
    }
    if (filler) {
        const std::string intact = filler->intact();
        data["filler_intact"] = intact.empty();
        if (!intact.empty()) data["filler_problem"] = intact;
    }
}

}  // namespace

RepeatRecord measure_sweep(const PlannedRun& run, const Nvml* nvml) {
    const std::string mode = param_choice(run, "mode");
    RepeatRecord out;
    const auto start = SteadyClock::now();
    Devices devices = open_devices(run.gpus, true);
    const ProbeSet probes = all_device_probes(nvml);
    out.snapshots.push_back(settled_snapshot(probes, "after_context", start));
    out.data["mode"] = mode;
    if (mode == "size_curve") {
        size_curve(run, devices, probes, start, out);
    } else if (mode == "count_curve") {
        count_curve(run, devices, probes, start, out);
    } else if (mode == "max_pinnable") {
        max_pinnable(run, devices, probes, start, out);
        out.snapshots.push_back(settled_snapshot(probes, "after_free", start));
    } else {
        throw InputError("run " + run.id + ": unknown sweep mode '" + mode + "'");
    }
    return out;
}

}  // namespace pinbench::kinds
