// Plan expansion: each scenario's lists multiplied out into runs, in a documented order so that
// run ids and result files are stable from one invocation to the next.
#include "pinbench/scenario/plan.hpp"

#include <algorithm>
#include <cstdio>
#include <limits>
#include <optional>
#include <sstream>

#include "json/json_reader.hpp"
#include "json/json_schema.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"
#include "pinbench/vocabulary/units.hpp"
#include "scenario/kind_table.hpp"

namespace pinbench {
namespace {

std::string run_id(const Scenario& s, ApiVariant api, std::uint64_t size, int count, int gpus) {
    return s.name + "/" + to_string(api) + "/" + size_label(size) + "/x" + std::to_string(count) + "/g" +
           std::to_string(gpus);
}

// One combination of a scenario's axis parameters: its id suffix and the run's params.
struct AxisPoint {
    std::string suffix;  // "/workers=4/variant=per_process"
    nlohmann::json params = nlohmann::json::object();
};

// The axis parameters multiplied out in table order (the last varies fastest), each point then
// given the scenario's other parameters that apply to it. One point with no suffix and {} for a
// kind without parameters.
std::vector<AxisPoint> axis_points(const Scenario& s) {
    std::vector<AxisPoint> points(1);
    const KindSpec* kind = find_kind(s.kind);
    if (kind == nullptr) {
        return points;
    }
    for (const ParamSpec& p : kind->params) {
        const auto values = s.params.find(std::string(p.name));
        if (!p.axis || values == s.params.end()) {
            continue;
        }
        const nlohmann::json list = values->is_array() ? *values : nlohmann::json::array({*values});
        std::vector<AxisPoint> next;
        for (const AxisPoint& point : points) {
            for (const nlohmann::json& v : list) {
                AxisPoint more = point;
                more.suffix += "/" + std::string(p.name) + "=" + param_label(p, v);
                more.params[std::string(p.name)] = v;
                next.push_back(std::move(more));
            }
        }
        points = std::move(next);
    }
    for (AxisPoint& point : points) {
        for (const ParamSpec& p : kind->params) {
            const auto value = s.params.find(std::string(p.name));
            if (!p.axis && value != s.params.end()) {
                point.params[std::string(p.name)] = *value;
            }
        }
        // A parameter whose condition names an axis applies only to the points that have it
        // (workers' prefetch_factor: variant framework only).
        for (const ParamSpec& p : kind->params) {
            if (!applies(p.when, point.params)) {
                point.params.erase(std::string(p.name));
            }
        }
    }
    return points;
}

// A planned run as the results file records it: results.schema.json's $defs/plan.
const detail::JsonSchema& planned_run_schema() {
    static const detail::JsonSchema schema = detail::embedded_schema_def("results.schema.json", "plan");
    return schema;
}

std::string format_seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}

}  // namespace

Plan expand(const ScenarioFile& file) {
    Plan plan;
    plan.source = file.path;
    for (const Scenario& s : file.scenarios) {
        const std::vector<AxisPoint> points = axis_points(s);
        for (const ApiVariant& api : s.apis) {
            for (std::uint64_t size : s.sizes) {
                for (int count : s.counts) {
                    for (int gpus : s.gpus) {
                        for (const AxisPoint& point : points) {
                            PlannedRun run;
                            run.id = run_id(s, api, size, count, gpus) + point.suffix;
                            run.scenario = s.name;
                            run.kind = s.kind;
                            run.api = api;
                            run.size = size;
                            run.count = count;
                            run.gpus = gpus;
                            run.repeats = s.repeats;
                            run.timeout_s = s.timeout_s;
                            run.driver_models = s.driver_models;
                            run.params = point.params;
                            // What the results file will say of it, within the schema's bounds
                            // (a size of 100 TiB is refused here, not in the file written).
                            planned_run_schema().validate(
                                to_json(run), file.path + ": scenario '" + terminal_text(s.name) + "', run " +
                                                  terminal_text(run.id));
                            plan.runs.push_back(std::move(run));
                        }
                    }
                }
            }
        }
    }
    return plan;
}

std::string describe(const Plan& plan) {
    std::size_t width = 0;
    for (const PlannedRun& r : plan.runs) {
        width = std::max(width, terminal_text(r.id).size());
    }
    std::ostringstream out;
    long long repeats = 0;
    for (const PlannedRun& r : plan.runs) {
        std::string models;
        for (const std::string& m : r.driver_models) {
            models += (models.empty() ? "" : ",") + m;
        }
        if (models.empty()) {
            models = "any";
        }
        // "repeats" right after the id: ci/tests/test_workflows.py reads the lines that way.
        // Names from the scenario file: escaped, so that a file cannot forge a line (terminal_text).
        const std::string id = terminal_text(r.id);
        out << id << std::string(width - id.size() + 2, ' ') << "repeats " << r.repeats << "  timeout "
            << format_seconds(r.timeout_s) << " s  kind " << terminal_text(r.kind) << "  driver models "
            << terminal_text(models) << '\n';
        repeats += r.repeats;
    }
    out << plan.runs.size() << (plan.runs.size() == 1 ? " run, " : " runs, ") << repeats
        << (repeats == 1 ? " repeat\n" : " repeats\n");
    return out.str();
}

nlohmann::json to_json(const PlannedRun& run) {
    return {
        {"id", run.id},
        {"scenario", run.scenario},
        {"kind", run.kind},
        {"api", to_string(run.api)},
        {"size_bytes", run.size},
        {"count", run.count},
        {"gpus", run.gpus},
        {"repeats", run.repeats},
        {"timeout_s", run.timeout_s},
        {"driver_models", run.driver_models},
        {"params", run.params},
    };
}

double max_timeout_s() {
    static const double seconds = planned_run_schema().at("/properties/timeout_s/maximum").get<double>();
    return seconds;
}

PlannedRun planned_run_from_json(const nlohmann::json& j) {
    // The types and bounds are the schema's (results.schema.json, $defs/plan): "planned run:
    // count: 0 is less than the minimum of 1".
    planned_run_schema().validate(j, "planned run");
    const detail::JsonAt at(j, "planned run", "");
    PlannedRun run;
    run.id = at.field("id").string();
    run.scenario = at.field("scenario").string();
    run.kind = at.field("kind").string();
    const detail::JsonAt api = at.field("api");
    std::string why;
    const std::optional<ApiVariant> parsed = parse_api_variant(api.string(), &why);
    if (!parsed) {
        api.fail(why);
    }
    run.api = *parsed;
    // Within the schema's bounds (checked above): a size fits 64 bits, the counts an int.
    run.size = j.at("size_bytes").get<std::uint64_t>();
    run.count = j.at("count").get<int>();
    run.gpus = j.at("gpus").get<int>();
    run.repeats = j.at("repeats").get<int>();
    run.timeout_s = j.at("timeout_s").get<double>();
    at.field("driver_models").for_each_element([&](const detail::JsonAt& m) {
        run.driver_models.push_back(m.string());
    });
    // Absent in results written before scenario format 2 (kind overhead, no parameters).
    if (const std::optional<detail::JsonAt> p = at.find("params")) {
        p->require_object();
        run.params = p->json();
    }
    return run;
}

}  // namespace pinbench
