#include "run/resume.hpp"

#include <cstddef>

#include "pinbench/results/environment_record.hpp"
#include "pinbench/scenario/plan.hpp"
#include "pinbench/vocabulary/errors.hpp"

namespace pinbench {
namespace {

// The first path at which two JSON values differ ("" when equal), for naming the field.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b, const std::string& path) {
    // Numbers compare by value: a count read back from JSON is unsigned, the same count parsed
    // from the scenario file now is signed (the first GPU resume was refused for that).
    if (a.type() != b.type() && !(a.is_number() && b.is_number())) return path.empty() ? "(root)" : path;
    if (a.is_object()) {
        for (const auto& [k, v] : a.items()) {
            if (!b.contains(k)) return path + "." + k;
            if (auto d = first_difference(v, b[k], path + "." + k); !d.empty()) return d;
        }
        for (const auto& [k, v] : b.items()) {
            if (!a.contains(k)) return path + "." + k;
        }
        return "";
    }
    if (a.is_array()) {
        if (a.size() != b.size()) return path + " (length)";
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (auto d = first_difference(a[i], b[i], path + "[" + std::to_string(i) + "]"); !d.empty()) {
                return d;
            }
        }
        return "";
    }
    return a == b ? "" : path;
}

// A partial file can be continued only by the same scenario and the same pinbench.
void check_resumable(const ResultsDocument& partial, const ResultsDocument& now, const std::string& path) {
    if (partial.complete) {
        throw InputError(path + ": --resume: this results file is complete; nothing to resume");
    }
    if (partial.backend != now.backend) {
        throw InputError(path + ": --resume: backend is " + partial.backend + " there, " + now.backend +
                         " here");
    }
    if (auto d = first_difference(partial.scenario, now.scenario, "scenario"); !d.empty()) {
        throw InputError(path + ": --resume: " + d +
                         " differs: the scenario file changed since the partial run");
    }
    if (auto d = first_difference(partial.tool.value("version", nlohmann::json()),
                                  now.tool.value("version", nlohmann::json()), "tool.version");
        !d.empty()) {
        throw InputError(path + ": --resume: tool.version differs: another pinbench wrote the partial run");
    }
}

}  // namespace

void continue_measurement(ResultsDocument& now, const ResultsDocument& partial, const std::string& path) {
    check_resumable(partial, now, path);
    // One measurement in two parts: its identity and start stay those of the first part.
    if (!partial.measurement_id.empty()) now.measurement_id = partial.measurement_id;
    now.started_at = partial.started_at;
    now.resumed = partial.resumed.is_array() ? partial.resumed : nlohmann::json::array();
    now.resumed.push_back({{"started_at", partial.started_at},
                           {"interrupted", partial.interrupted},
                           {"runs", partial.runs.size()},
                           {"command", partial.command},
                           {"environment", partial.environment},
                           {"controls", partial.controls}});
}

void check_same_environment(const ResultsDocument& partial, const ResultsDocument& now,
                            const std::string& path) {
    const auto before = machine_identity_of(partial.environment),
               after = machine_identity_of(now.environment);
    for (std::size_t i = 0; i < before.size(); ++i) {
        if (before[i].second != after[i].second) {
            throw InputError(
                path + ": --resume: environment." + before[i].first + " is \"" + before[i].second +
                "\" in the partial run and \"" + after[i].second +
                "\" here: measure the rest on the machine and driver that measured the first part");
        }
    }
}

const RunRecord* finished_run(const ResultsDocument& partial, const PlannedRun& planned, std::string* why) {
    for (const auto& r : partial.runs) {
        if (r.run.id != planned.id) continue;
        if (const auto d = first_difference(to_json(r.run), to_json(planned), "plan"); !d.empty()) {
            *why = d + " differs from the plan";
            return nullptr;
        }
        for (const auto& repeat : r.repeats) {
            if (repeat.index >= planned.repeats) {
                *why = "it holds repeat " + std::to_string(repeat.index) + " of a plan of " +
                       std::to_string(planned.repeats);
                return nullptr;
            }
        }
        return &r;
    }
    return nullptr;
}

}  // namespace pinbench
