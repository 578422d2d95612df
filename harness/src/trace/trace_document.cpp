#include "trace/trace_document.hpp"

#include <set>

#include "json/json_schema.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "trace/pinned_timeline.hpp"

namespace pinbench::trace {
namespace {

double ms_since(std::int64_t start_ns, std::int64_t t_ns) {
    return static_cast<double>(t_ns - start_ns) / 1e6;
}

std::set<std::uint32_t> traced_pids(const Gathered& g) {
    std::set<std::uint32_t> pids{g.root_pid};
    for (const auto& s : g.events.starts) pids.insert(s.pid);
    for (const auto& c : g.events.calls) pids.insert(c.pid);
    return pids;
}

nlohmann::json holding_json(const Holding& h) {
    return {{"api", h.api}, {"bytes", h.bytes}, {"pid", h.pid}, {"device", h.device}, {"site", h.site}};
}

template <typename Map>
nlohmann::json keyed(const Map& m) {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [k, v] : m) {
        if constexpr (std::is_same_v<typename Map::key_type, std::string>) {
            j[k] = v;
        } else {
            j[std::to_string(k)] = v;
        }
    }
    return j;
}

}  // namespace

TracingState tracing_state(const Gathered& g) {
    if (g.injection.empty()) return {"not_loaded", "no injection library: " + g.injection_why};
    if (g.events.starts.empty()) {
        return {"not_loaded",
                "no process of the program loaded the injection library (it never initialised CUDA, or the "
                "driver ignored CUDA_INJECTION64_PATH)"};
    }
    int failed = 0;
    std::string first_error;
    for (const auto& s : g.events.starts) {
        if (!s.error.empty()) {
            ++failed;
            if (first_error.empty()) first_error = s.error;
        }
    }
    if (failed == 0) return {"on", ""};
    const std::string counts = std::to_string(failed) + " of " + std::to_string(g.events.starts.size()) +
                               " CUDA processes not traced: " + first_error;
    return {failed == static_cast<int>(g.events.starts.size()) ? "unavailable" : "partial", counts};
}

nlohmann::json build_trace(const Gathered& g) {
    nlohmann::json t;
    t["schema"] = kTraceSchema;
    t["version"] = kTraceVersion;
    t["command"] = g.command;
    t["working_directory"] = g.working_directory;
    t["started_at"] = g.started_at;
    t["status"] = {{"kind", g.status.kind},
                   {"exit_code", g.status.exit_code},
                   {"signal", g.status.signal},
                   {"message", g.status.message}};
    t["wall_ms"] = g.wall_ms;
    t["root_pid"] = g.root_pid;
    const TracingState state = tracing_state(g);
    nlohmann::json processes = nlohmann::json::array();
    for (const auto& s : g.events.starts) {
        processes.push_back(
            {{"pid", s.pid}, {"t_ms", ms_since(g.start_ns, s.t_ns)}, {"cupti", s.cupti}, {"error", s.error}});
    }
    t["tracing"] = {{"state", state.state},     {"message", state.message},
                    {"injection", g.injection}, {"stack_depth", g.stack_depth},
                    {"processes", processes},   {"unreadable_lines", g.events.unreadable_lines}};
    t["environment"] = g.environment;
    t["notes"] = g.notes;

    nlohmann::json calls = nlohmann::json::array();
    for (const PinCall& c : g.events.calls) {
        nlohmann::json j = to_json_line(c);
        j.erase("event");
        j["t_ms"] = ms_since(g.start_ns, c.t_ns);
        j.erase("t_ns");
        calls.push_back(std::move(j));
    }
    t["calls"] = calls;

    const PinnedTimeline timeline = build_timeline(g.events.calls);
    nlohmann::json by_api = nlohmann::json::object();
    for (const auto& [api, totals] : timeline.by_api) {
        by_api[api] = {
            {"calls", totals.calls}, {"failed", totals.failed}, {"bytes_asked", totals.bytes_asked}};
    }
    nlohmann::json at_peak = nlohmann::json::array();
    for (const Holding& h : timeline.at_peak) at_peak.push_back(holding_json(h));
    nlohmann::json points = nlohmann::json::array();
    for (const TimelinePoint& p : timeline.points) points.push_back({ms_since(g.start_ns, p.t_ns), p.held});
    const std::string summary = g.events.calls.empty()
                                    ? (state.state == "on" ? "the program made no host-pinning call"
                                                           : "no calls seen: tracing " + state.state)
                                    : std::to_string(g.events.calls.size()) + " host-pinning calls";
    t["pinned"] = {
        {"summary", summary},
        {"peak_bytes", timeline.peak_held},
        {"peak_t_ms",
         timeline.peak_held > 0 ? nlohmann::json(ms_since(g.start_ns, timeline.peak_t_ns)) : nullptr},
        {"peak_end_ms",
         timeline.peak_end_ns != 0 ? nlohmann::json(ms_since(g.start_ns, timeline.peak_end_ns)) : nullptr},
        {"at_peak", at_peak},
        {"peak_by_family", keyed(timeline.peak_by_family)},
        {"peak_by_device", keyed(timeline.peak_by_device)},
        {"peak_by_site", keyed(timeline.peak_by_site)},
        {"peak_by_pid", keyed(timeline.peak_by_pid)},
        {"by_api", by_api},
        {"unmatched_releases", timeline.unmatched_releases},
        {"timeline", points},  // [t_ms, held bytes] after each change
    };

    nlohmann::json samples = nlohmann::json::array();
    for (const DeviceSample& s : g.samples) {
        nlohmann::json devices = nlohmann::json::array();
        for (const DeviceReading& r : s.devices) {
            nlohmann::json procs = nlohmann::json::object();
            for (const auto& [pid, used] : r.processes) procs[std::to_string(pid)] = used;
            devices.push_back({{"nvml_index", r.nvml_index},
                               {"used", r.used ? nlohmann::json(*r.used) : nullptr},
                               {"processes", r.processes_known ? procs : nlohmann::json(nullptr)}});
        }
        nlohmann::json sample = {{"t_ms", ms_since(g.start_ns, s.t_ns)}, {"devices", devices}};
        if (!s.consistent) sample["consistent"] = false;
        samples.push_back(std::move(sample));
    }
    t["device"] = {{"sampled", g.sampled},
                   {"why", g.sampling_why},
                   {"interval_ms", g.interval_ms},
                   {"samples", samples}};

    const PeakCost cost = cost_at_peak(timeline, g.events.calls, g.samples, traced_pids(g), g.end_ns);
    nlohmann::json per_device = nlohmann::json::array();
    for (const DeviceCostAtPeak& d : cost.devices) {
        per_device.push_back({{"nvml_index", d.nvml_index},
                              {"cost_bytes", d.cost ? nlohmann::json(*d.cost) : nullptr},
                              {"device_delta_bytes", d.device_delta},
                              {"own_delta_bytes", d.own_delta},
                              {"samples", d.samples},
                              {"why", d.why},
                              {"disturbances", d.disturbances}});
    }
    t["cost_at_peak"] = {
        {"baseline_t_ms", g.samples.empty() ? nlohmann::json(nullptr)
                                            : nlohmann::json(ms_since(g.start_ns, cost.baseline_t_ns))},
        {"baseline_before_first_pin", cost.baseline_before_first_pin},
        {"baseline_before_context", cost.baseline_before_context},
        {"devices", per_device},
    };
    // Never a trace its readers refuse (trace.schema.json's bounds: a time before the start, a
    // size past 64 TiB): such values came from an events file the injection library did not write.
    if (const auto v = detail::embedded_schema("trace.schema.json").first_violation(t)) {
        throw InputError("the trace's events give " + v->path + ": " + v->message +
                         " (trace.schema.json); the events file is not the injection library's");
    }
    return t;
}

}  // namespace pinbench::trace
