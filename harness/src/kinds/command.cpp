// command: a team's own program, traced (docs/trace.md) under the repeat protocol, so what it
// pins and what that costs the GPU are stored, compared across driver releases and bounded by
// `expect` like any other metric. The repeat is the trace of one run of the program; its
// metrics come from the trace's summary in `data`, so the replay backend recomputes them.
#include <algorithm>
#include <chrono>
#include <set>

#include "kinds/kind_support.hpp"
#include "pinbench/scenario/plan.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "results/kind_metrics.hpp"
#include "scenario/kind_spec.hpp"
#include "trace/trace_command.hpp"

namespace pinbench::kinds {
namespace {

std::vector<std::string> texts(const PlannedRun& run, const char* name) {
    std::vector<std::string> out;
    const auto it = run.params.find(name);
    if (it == run.params.end() || !it->is_array()) return out;
    for (const auto& v : *it) out.push_back(v.get<std::string>());
    return out;
}

// `{variant}` in an argument becomes the run's variant (an axis: one run per value).
std::vector<std::string> command_of(const PlannedRun& run) {
    std::vector<std::string> argv = texts(run, "command");
    const auto v = run.params.find("variant");
    if (v == run.params.end() || v->is_null()) return argv;
    const std::string value = v->is_string() ? v->get<std::string>() : v->dump();
    for (std::string& a : argv) {
        for (std::size_t at = a.find("{variant}"); at != std::string::npos; at = a.find("{variant}", at)) {
            a.replace(at, 9, value);
        }
    }
    return argv;
}

RepeatRecord measure(const PlannedRun& run, const Nvml* nvml) {
    trace::TraceOptions options;
    options.command = command_of(run);
    const auto cwd = run.params.find("working_directory");
    if (cwd != run.params.end() && cwd->is_string()) options.working_directory = cwd->get<std::string>();
    for (const std::string& entry : texts(run, "environment")) {
        const auto eq = entry.find('=');
        if (eq == std::string::npos || eq == 0) {
            throw InputError("command: environment entry '" + entry + "' is not NAME=VALUE");
        }
        options.environment[entry.substr(0, eq)] = entry.substr(eq + 1);
    }
    options.timeout =
        std::chrono::milliseconds(static_cast<long long>(param_number(run, "timeout_s") * 1000));
    options.stack_depth = param_int(run, "stack");
    trace::TraceStatus status;
    const nlohmann::json t =
        trace::run_trace(options, nvml, nvml == nullptr ? "NVML not available" : "", &status);

    // A program that fails is a failed repeat, with its status; one that says it cannot run
    // here (a note {"skipped": reason}, e.g. no torch) is waived.
    if (status.kind != "exited" || status.exit_code != 0) {
        throw std::runtime_error("command " + status.kind + ": " + status.message);
    }
    if (const auto skipped = t["notes"].find("skipped");
        skipped != t["notes"].end() && skipped->is_string()) {
        throw UnsupportedError("the program skipped itself: " + skipped->get<std::string>());
    }
    if (t["tracing"]["state"] != "on") {
        throw UnsupportedError("tracing " + t["tracing"]["state"].get<std::string>() + ": " +
                               t["tracing"]["message"].get<std::string>());
    }
    RepeatRecord out;
    out.timings_ms["wall"] = t["wall_ms"].get<double>();
    nlohmann::json cost = nlohmann::json::object();
    nlohmann::json why = nlohmann::json::object();
    for (const auto& d : t["cost_at_peak"]["devices"]) {
        const std::string key = "nvml." + std::to_string(d["nvml_index"].get<unsigned>()) + ".used";
        if (!d["disturbances"].empty()) {
            why[key] = "disturbed: " + d["disturbances"][0].get<std::string>();
        } else if (t["cost_at_peak"].value("baseline_before_context", false)) {
            why[key] = "no device sample showed the program's context before its first pin";
        } else if (d["cost_bytes"].is_number()) {
            cost[key] = d["cost_bytes"];
        } else {
            why[key] = d["why"];
        }
    }
    std::vector<std::uint32_t> pids{t["root_pid"].get<std::uint32_t>()};
    for (const auto& p : t["tracing"]["processes"]) pids.push_back(p["pid"].get<std::uint32_t>());
    out.data = {
        {"command", options.command},
        {"exit_code", status.exit_code},
        {"pinning_calls", t["calls"].size()},
        {"peak_pinned_bytes", t["pinned"]["peak_bytes"]},
        {"peak_by_family", t["pinned"]["peak_by_family"]},
        {"cost_at_peak", cost},
        {"cost_not_measured", why},
        {"notes", t["notes"]},
        // The traced program and its CUDA processes are this repeat's own, not neighbours.
        {"worker_pids", pids},
    };
    return out;
}

void derive(const RunRecord&, const OkRepeats& ok, MetricSink& sink) {
    sink.put("command.peak_pinned_bytes",
             per_repeat(ok, [](const RepeatRecord& r) { return data_number(r.data, "peak_pinned_bytes"); }));
    sink.put("command.pinning_calls",
             per_repeat(ok, [](const RepeatRecord& r) { return data_number(r.data, "pinning_calls"); }));
    std::set<std::string> keys;
    for (const RepeatRecord* r : ok) {
        const nlohmann::json costs =
            r->data.value("cost_at_peak", nlohmann::json::object());  // a copy: items() keeps a reference
        for (const auto& [key, value] : costs.items()) keys.insert(key);
    }
    for (const std::string& key : keys) {
        sink.put("command.cost_at_peak." + key,
                 per_repeat(ok,
                            [&](const RepeatRecord& r) -> std::optional<double> {
                                const nlohmann::json c =
                                    r.data.value("cost_at_peak", nlohmann::json::object());
                                const auto it = c.find(key);
                                if (it == c.end() || !it->is_number()) return std::nullopt;
                                return it->get<double>();
                            }),
                 key);
    }
}

}  // namespace

KindSpec command() {
    ParamSpec cmd;
    cmd.name = "command";
    cmd.type = ParamType::texts;
    cmd.required = true;
    ParamSpec cwd;
    cwd.name = "working_directory";
    cwd.type = ParamType::text;
    ParamSpec env;
    env.name = "environment";
    env.type = ParamType::texts;
    env.fallback = nlohmann::json::array();
    ParamSpec variant = axis(integer_param("variant", 0, false));
    KindSpec kind{"command",
                  2,
                  {cmd, variant, cwd, env, number_param("timeout_s", 0, true, false, 600.0),
                   integer_param("stack", 0, false, 0)}};
    kind.measure = measure;
    kind.derive = derive;
    kind.starts_cuda_processes = true;
    kind.metrics = {
        {"command.peak_pinned_bytes", "bytes", higher_is_worse, true,
         "the most the program held pinned at once", host_budget},
        {"command.cost_at_peak.<key>", "bytes", higher_is_worse, true,
         "the device cost at the pinned peak (device minus the program's own, docs/trace.md)"},
        {"command.pinning_calls", "count", neither_direction, false, "host-pinning calls the program made"},
    };
    kind.title =
        "your own program, traced: peak pinned bytes and the device cost at the peak (docs/trace.md)";
    kind.report = ReportPlace::optional_section;
    return kind;
}

}  // namespace pinbench::kinds
