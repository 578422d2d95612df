// sweep: the cost as a curve over size or over the number of buffers held, and the largest
// size an api can pin (brief experiment 2; docs/kinds.md).
#include <algorithm>
#include <new>
#include <optional>
#include <set>
#include <string>

#include "kinds/kind_support.hpp"
#include "pinbench/cuda/device_capacity.hpp"
#include "pinbench/scenario/scenario.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/units.hpp"
#include "platform/host_memory.hpp"
#include "results/kind_metrics.hpp"
#include "results/snapshot_cost.hpp"
#include "scenario/kind_spec.hpp"
#include "scenario/kind_table.hpp"

namespace pinbench::kinds {
namespace {

// max_pinnable with a fill needs free_target below what device 0 has free once a context exists.
std::optional<std::string> waive(const PlannedRun& run, const Machine& machine) {
    if (!machine.device0 || param_choice(run, "mode") != "max_pinnable") return std::nullopt;
    const auto target = run.params.find("free_target");
    if (target == run.params.end() || !target->is_number_unsigned()) return std::nullopt;
    return free_target_not_below(*machine.device0, target->get<std::uint64_t>());
}

// The parser refuses a curve of more than max_size_curve_points sizes (pinbench/scenario/scenario.hpp),
// at its step or factor, rather than cut it short while it runs.
std::optional<ParamFault> check_params(const nlohmann::json& params) {
    if (params.value("mode", "") != "size_curve" || !params.contains("start") || !params.contains("stop")) {
        return std::nullopt;
    }
    const bool by_step = params.contains("step") && !params["step"].is_null();
    if (!by_step && !(params.contains("factor") && params["factor"].is_number())) {
        return std::nullopt;
    }
    const std::uint64_t n =
        size_curve_sizes(params["start"].get<std::uint64_t>(), params["stop"].get<std::uint64_t>(),
                         by_step ? params["step"].get<std::uint64_t>() : 0,
                         by_step ? 0.0 : params["factor"].get<double>(), max_size_curve_points + 1)
            .size();
    if (n <= max_size_curve_points) return std::nullopt;
    return ParamFault{by_step ? "step" : "factor",
                      "the size curve from " + size_label(params["start"].get<std::uint64_t>()) + " to " +
                          size_label(params["stop"].get<std::uint64_t>()) + " has more than " +
                          std::to_string(max_size_curve_points) +
                          " points (docs/scenario-format.md, Limits); use a larger step or factor"};
}

// The sizes the parser counted and admitted (check_params), so the curve measured is the one
// checked.
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

// One pin of the search: the buffer, pinned and copied from by the GPU, or the error text.
struct TriedPin {
    std::vector<std::unique_ptr<HostBuffer>> buffer;  // one buffer when it worked
    std::string error;
};

TriedPin pin_and_use(ApiVariant api, std::uint64_t bytes, Devices& devices) {
    TriedPin out;
    try {
        out.buffer.push_back(allocate_host_buffer(api, bytes));
        // Usable, not just returned: the GPU copies from its start.
        devices.use_everywhere(out.buffer);
    } catch (const CudaError& e) {
        out.error = e.what();
    } catch (const std::bad_alloc&) {
        out.error = "host allocation failed (std::bad_alloc)";
    }
    if (!out.error.empty()) out.buffer.clear();
    return out;
}

// Pins `bytes` and copies one chunk from it, then frees it; the error text when that fails.
std::string try_pin(ApiVariant api, std::uint64_t bytes, Devices& devices) {
    return pin_and_use(api, bytes, devices).error;
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
        throw_if_waived(waive(run, with_device0(run, devices)));
        filler = std::make_unique<DeviceFiller>(free_target,
                                                param_bytes_or(run, "resolution", default_resolution));
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
    TriedPin at_cap = pin_and_use(run.api, cap_effective, devices);
    std::string stopped_by = at_cap.error;
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
    double search_ms = ms_between(t0, SteadyClock::now());
    // The probes (DXGI LOCAL / NON_LOCAL budgets and usage on Windows) with the largest success
    // held. Where the cap pinned at once (most machines), it is that pin, still held: pinning the
    // cap a second time for them took about 4 s of each 8 GiB run on the H100
    // (results/answer-in-a-minute). Its free counts in the search's time, as it did.
    std::optional<Snapshot> at_max;
    if (!at_cap.buffer.empty()) {
        at_max = settled_snapshot(probes, "at_max_pinnable", start);
        const auto freeing = SteadyClock::now();
        at_cap.buffer.clear();
        search_ms += ms_between(freeing, SteadyClock::now());
    }
    out.timings_ms["search"] = search_ms;
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
    if (at_max) {
        out.snapshots.push_back(*std::move(at_max));
    } else if (best > 0) {
        // Below the cap: the search held each candidate only while it was used; the largest
        // success is pinned again.
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

RepeatRecord measure(const PlannedRun& run, const Nvml* nvml) {
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

void derive(const RunRecord&, const OkRepeats& ok, MetricSink& sink) {
    const nlohmann::json& first = ok.front()->data;
    const std::string mode = first.value("mode", "");
    if (mode == "size_curve" && first.contains("sizes")) {
        std::vector<double> xs;
        for (const auto& s : first["sizes"]) xs.push_back(s.get<double>());
        for (const auto& s : first["sizes"]) {
            const std::string bytes = std::to_string(s.get<std::uint64_t>());
            sink.costs(ok, "sweep.cost." + bytes, "after_context", "size_" + bytes);
        }
        for (const std::string& key : memory_keys(ok)) {
            std::optional<std::vector<double>> slopes = std::vector<double>{}, bases = std::vector<double>{};
            for (const RepeatRecord* r : ok) {
                std::vector<double> x, y;
                for (double size : xs) {
                    const auto c = snapshot_cost(
                        *r, "after_context", "size_" + std::to_string(static_cast<std::uint64_t>(size)), key);
                    if (!c) break;
                    x.push_back(size / bytes_per_gib);
                    y.push_back(*c);
                }
                const auto fit = x.size() == xs.size() ? linear_fit(x, y) : std::nullopt;
                if (!fit) {
                    slopes.reset();
                    break;
                }
                slopes->push_back(fit->slope);
                bases->push_back(fit->intercept);
            }
            if (!slopes) continue;
            sink.put("sweep.slope_per_gib." + key, slopes, key);
            sink.put("sweep.base." + key, bases, key);
        }
    } else if (mode == "count_curve") {
        const int k_max = first.value("max_count", 0);
        for (int k = 1; k <= k_max; ++k) {
            sink.costs(ok, "sweep.cost.x" + std::to_string(k), "after_context", "count_" + std::to_string(k));
        }
        for (const std::string& key : memory_keys(ok)) {
            sink.put(
                "sweep.steps." + key, per_repeat(ok, [&](const RepeatRecord& r) -> std::optional<double> {
                    std::set<double> levels;
                    for (int k = 1; k <= k_max; ++k) {
                        const auto c = snapshot_cost(r, "after_context", "count_" + std::to_string(k), key);
                        if (!c) return std::nullopt;
                        levels.insert(*c);
                    }
                    return static_cast<double>(levels.size());
                }));
        }
    } else if (mode == "max_pinnable") {
        sink.put("sweep.max_pinnable",
                 per_repeat(ok, [](const RepeatRecord& r) { return data_number(r.data, "max_pinnable"); }));
        // Against free VRAM (free_target): what was free when the search began, whether the cap
        // bounded it (then max_pinnable is a lower bound), and the share of host RAM it reached.
        sink.put("sweep.free_before",
                 per_repeat(ok, [](const RepeatRecord& r) { return data_number(r.data, "free_before"); }));
        sink.put("sweep.capped", per_repeat(ok, [](const RepeatRecord& r) -> std::optional<double> {
                     if (!r.data.contains("free_before")) return std::nullopt;
                     return r.data.value("capped", false) ? 1.0 : 0.0;
                 }));
        sink.put("sweep.max_pinnable_over_host_ram",
                 per_repeat(ok, [](const RepeatRecord& r) -> std::optional<double> {
                     const auto pinned = data_number(r.data, "max_pinnable");
                     const auto ram = data_number(r.data, "host_ram_total");
                     if (!pinned || !ram || *ram <= 0) return std::nullopt;
                     return *pinned / *ram;
                 }));
        OkRepeats failed;
        for (const RepeatRecord* r : ok) {
            if (r->data.contains("small_after_failure")) failed.push_back(r);
        }
        sink.put("sweep.small_after_failure_ok",
                 per_repeat(failed, [](const RepeatRecord& r) -> std::optional<double> {
                     return r.data["small_after_failure"].value("ok", false) ? 1.0 : 0.0;
                 }));
    }
}

}  // namespace

KindSpec sweep() {
    ParamSpec start = when(size_param("start", true), "mode", "size_curve");
    start.not_above = "stop";
    ParamSpec stop = when(size_param("stop", true), "mode", "size_curve");
    stop.is_run_size = true;
    ParamSpec step = when(size_param("step", false), "mode", "size_curve");
    step.one_of_group = "step/factor";
    ParamSpec factor = when(number_param("factor", 1, true, false), "mode", "size_curve");
    factor.one_of_group = "step/factor";
    ParamSpec cap = when(size_param("cap", true), "mode", "max_pinnable");
    cap.is_run_size = true;
    // max_pinnable with device memory filled first until free_target is left ("all" or absent:
    // no fill; absent keeps the run ids of files written before the parameter existed).
    ParamSpec free_target = when(axis(size_param("free_target", false)), "mode", "max_pinnable");
    free_target.words = {"all"};
    ParamSpec host_limit = when(size_param("host_limit", false), "mode", "max_pinnable");
    host_limit.not_above = "cap";
    KindSpec kind{"sweep",
                  2,
                  {choice_param("mode", {"size_curve", "count_curve", "max_pinnable"}, true), start, stop,
                   step, factor, when(integer_param("max_count", 1, true), "mode", "count_curve"), cap,
                   when(number_param("time_limit_s", 0, true, false, 60.0), "mode", "max_pinnable"),
                   free_target, host_limit,
                   // No fallbacks: the child's defaults (off, 2 MiB) keep older plans as they were.
                   when(choice_param("enforce_host_limit", {"off", "on"}, false), "mode", "max_pinnable"),
                   when(size_param("resolution", false), "mode", "max_pinnable")}};
    kind.check_params = check_params;
    kind.reservation_rule = true;
    kind.waive = waive;
    kind.measure = measure;
    kind.derive = derive;
    kind.metrics = {
        {"sweep.cost.<bytes>.<key>", "bytes", higher_is_worse, false, "size_curve: cost at one size"},
        {"sweep.slope_per_gib.<key>", "bytes", higher_is_worse, true,
         "size_curve: least-squares cost per GiB"},
        {"sweep.base.<key>", "bytes", higher_is_worse, true, "size_curve: the fit's intercept"},
        {"sweep.cost.x<k>.<key>", "bytes", higher_is_worse, false, "count_curve: cost with k buffers held"},
        {"sweep.steps.<key>", "count", neither_direction, true, "count_curve: distinct cost levels"},
        {"sweep.max_pinnable", "bytes", higher_is_better, true, "max_pinnable: the largest size pinned",
         host_budget},
        {"sweep.free_before", "bytes", neither_direction, true,
         "max_pinnable: free VRAM when the search began", dedicated_budget},
        {"sweep.capped", "ratio", neither_direction, true, "max_pinnable: repeats whose cap pinned at once"},
        {"sweep.max_pinnable_over_host_ram", "ratio", higher_is_better, true,
         "max_pinnable over the host's RAM"},
        {"sweep.small_after_failure_ok", "ratio", higher_is_better, true,
         "a 64 MiB pin after a failed one worked"},
    };
    kind.title =
        "size and count sweeps, largest pinnable size against free VRAM (claims 2 and 10, and an added "
        "claim)";
    kind.charts = {"sweep", "pinnable"};
    return kind;
}

}  // namespace pinbench::kinds
