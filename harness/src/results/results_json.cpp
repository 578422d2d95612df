// The results file, schema "pinbench.results" (docs/results-schema.md). The writer emits every
// field of the current version; the reader requires every field of the version it reads and
// names the file and JSON path of the first problem, so a hand-edited or truncated file is
// rejected rather than half-read. Older versions are upgraded once read (results_upgrade.hpp).
#include <algorithm>
#include <limits>
#include <set>
#include <stdexcept>

#include "json/json_reader.hpp"
#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "probes/snapshot_json.hpp"
#include "results/results_upgrade.hpp"

namespace pinbench {

namespace {

using detail::JsonAt;
using nlohmann::json;

// Written into every replayed document so that no reader can mistake it for a measurement.
constexpr const char* replay_note = "REPLAYED DATA derived from a real results file; not a measurement";

json object_or_empty(const json& j) { return j.is_null() ? json::object() : j; }

std::string cleaned(const json::exception& e) {
    // nlohmann prefixes "[json.exception.parse_error.101] "; the id helps nobody reading a CLI message.
    const std::string what = e.what();
    const auto pos = what.find("] ");
    return pos == std::string::npos ? what : what.substr(pos + 2);
}

Status status_at(const JsonAt& at) {
    const std::string s = at.string();
    try {
        return status_from_string(s);
    } catch (const InputError& e) {
        at.fail(e.what());
    }
}

json to_json(const MetricSummary& m) {
    json j = m.stats;
    j["unit"] = m.unit;
    j["granule"] = m.granule ? json(*m.granule) : json(nullptr);
    if (m.disturbed) j["disturbed"] = true;
    j["samples"] = m.samples ? json(*m.samples) : json(nullptr);
    return j;
}

// Version 4: one number per summarised repeat, or null (an older file's metric the upgrade
// could not rebuild, judged on its summary).
std::optional<std::vector<double>> samples_from(const JsonAt& at, std::size_t n) {
    if (at.json().is_null()) return std::nullopt;
    std::vector<double> out;
    at.for_each_element([&](const JsonAt& v) { out.push_back(v.number()); });
    if (out.size() != n) {
        at.fail("holds " + std::to_string(out.size()) + " samples where n is " + std::to_string(n));
    }
    return out;
}

MetricSummary metric_from(const JsonAt& at, std::int64_t version) {
    at.require_object();
    MetricSummary m;
    const JsonAt unit = at.field("unit");
    m.unit = unit.string();
    if (m.unit != "bytes" && m.unit != "ms" && m.unit != "ratio" && m.unit != "count") {
        unit.fail("unknown unit '" + m.unit + "' (expected bytes, ms, ratio or count)");
    }
    const JsonAt n = at.field("n");
    const std::int64_t count = n.integer();
    if (count < 0) n.fail("must not be negative");
    m.stats.n = static_cast<std::size_t>(count);
    m.stats.median = at.field("median").number();
    m.stats.min = at.field("min").number();
    m.stats.max = at.field("max").number();
    m.stats.mad = at.field("mad").number();
    const JsonAt granule = at.field("granule");
    if (!granule.json().is_null()) m.granule = granule.integer();
    if (at.has("disturbed")) m.disturbed = at.field("disturbed").boolean();  // version 3
    if (version >= 4) m.samples = samples_from(at.field("samples"), m.stats.n);
    return m;
}

// Null, or an object whose evidence is a list of objects, each with a one-line text.
json disturbance_from(const JsonAt& at) {
    if (at.json().is_null()) return nullptr;
    at.require_object();
    at.field("evidence").for_each_element([](const JsonAt& e) {
        e.require_object();
        e.field("text").string();
    });
    if (at.has("probes")) at.field("probes").for_each_element([](const JsonAt& p) { p.string(); });
    return at.json();
}

RepeatRecord repeat_from(const JsonAt& at, std::int64_t version) {
    at.require_object();
    RepeatRecord r;
    const JsonAt index = at.field("index");
    const std::int64_t i = index.integer();
    if (i < 0 || i > std::numeric_limits<int>::max()) index.fail("out of range");
    r.index = static_cast<int>(i);
    if (at.has("attempt")) {  // version 3
        const JsonAt attempt = at.field("attempt");
        const std::int64_t a = attempt.integer();
        if (a < 0 || a > 1000) attempt.fail("out of range");
        r.attempt = static_cast<int>(a);
    }
    r.status = status_at(at.field("status"));
    r.error = at.field("error").string();
    const JsonAt pid = at.field("pid");
    const std::int64_t p = pid.integer();
    if (p < 0 || p > std::numeric_limits<std::uint32_t>::max()) pid.fail("out of range");
    r.pid = static_cast<std::uint32_t>(p);
    r.nonce = at.field("nonce").string();
    r.wall_ms = at.field("wall_ms").number();
    r.parent_wait_ms = at.field("parent_wait_ms").number();
    r.parent_settled = at.field("parent_settled").boolean();
    at.field("timings_ms").for_each_member([&](const std::string& name, const JsonAt& v) {
        r.timings_ms[name] = v.number();
    });
    if (version >= 5 || at.has("phases_ms")) {  // version 5
        at.field("phases_ms").for_each_member([&](const std::string& name, const JsonAt& v) {
            r.phases_ms[name] = v.number();
        });
    }
    at.field("snapshots").for_each_element([&](const JsonAt& s) {
        r.snapshots.push_back(detail::snapshot_from(s));
    });
    r.output_tail = at.field("output_tail").string();
    if (at.has("data")) {  // version 2; absent in version 1
        const JsonAt data = at.field("data");
        data.require_object();
        r.data = data.json();
    }
    if (at.has("disturbance")) r.disturbance = disturbance_from(at.field("disturbance"));
    return r;
}

Stopping stopping_from(const JsonAt& at) {
    at.require_object();
    Stopping s;
    const auto count = [&](const char* name) {
        const JsonAt f = at.field(name);
        const std::int64_t n = f.integer();
        if (n < 0 || n > std::numeric_limits<int>::max()) f.fail("out of range");
        return static_cast<int>(n);
    };
    s.planned = count("planned");
    s.stopped_at = count("stopped_at");
    if (s.stopped_at > s.planned) {
        at.field("stopped_at").fail("more than the planned " + std::to_string(s.planned));
    }
    s.why = at.field("why").string();
    return s;
}

json to_json(const std::optional<Stopping>& s) {
    if (!s) return nullptr;
    return json{{"planned", s->planned}, {"stopped_at", s->stopped_at}, {"why", s->why}};
}

json to_json(const RunRecord& run) {
    json repeats = json::array();
    for (const auto& r : run.repeats) repeats.push_back(to_json(r));
    json metrics = json::object();
    for (const auto& [name, m] : run.metrics) metrics[name] = to_json(m);
    return json{{"id", run.run.id},
                {"plan", to_json(run.run)},
                {"status", to_string(run.status)},
                {"reason", run.reason},
                {"repeats", std::move(repeats)},
                {"metrics", std::move(metrics)},
                {"disturbance", run.disturbance},
                {"stopping", to_json(run.stopping)}};
}

RunRecord run_from(const JsonAt& at, std::int64_t version) {
    at.require_object();
    RunRecord run;
    const JsonAt id = at.field("id");
    const std::string id_text = id.string();
    const JsonAt plan = at.field("plan");
    try {
        run.run = planned_run_from_json(plan.json());
    } catch (const InputError& e) {
        plan.fail(e.what());
    } catch (const json::exception& e) {
        plan.fail(cleaned(e));
    }
    if (run.run.id != id_text) id.fail("'" + id_text + "' differs from plan.id '" + run.run.id + "'");
    run.status = status_at(at.field("status"));
    run.reason = at.field("reason").string();
    at.field("repeats").for_each_element(
        [&](const JsonAt& r) { run.repeats.push_back(repeat_from(r, version)); });
    at.field("metrics").for_each_member(
        [&](const std::string& name, const JsonAt& m) { run.metrics[name] = metric_from(m, version); });
    if (at.has("disturbance")) run.disturbance = disturbance_from(at.field("disturbance"));
    // Version 5: null or the record; absent before (an older file says nothing of it).
    if (version >= 5 || at.has("stopping")) {
        const JsonAt stopping = at.field("stopping");
        if (!stopping.json().is_null()) run.stopping = stopping_from(stopping);
    }
    return run;
}

json replay_block(const ResultsDocument& doc) {
    if (doc.backend == "cuda") {
        if (!doc.replay.is_null()) throw std::invalid_argument("results: backend cuda with a replay block");
        return nullptr;
    }
    if (doc.backend != "replay") {
        throw std::invalid_argument("results: unknown backend '" + doc.backend + "'");
    }
    if (!doc.replay.is_object()) throw std::invalid_argument("results: backend replay needs a replay block");
    json replay = doc.replay;
    if (!replay.contains("note")) replay["note"] = replay_note;
    return replay;
}

// A string, or {"unavailable": "<why>"} (environment facts the probes could not read).
void check_string_or_unavailable(const JsonAt& at) {
    if (at.json().is_string()) return;
    if (!at.json().is_object()) at.fail("expected a string or {\"unavailable\": ...}, found " + at.type());
    at.field("unavailable").string();
}

// The environment record's members that the store files by and the reports group by, checked as
// the results schema checks them (reports/pinreport/data/results.schema.json, $defs/environment):
// what `store add` accepts, pinreport reads. The rest of the record is free-form.
void check_environment(const JsonAt& at) {
    at.require_object();
    if (const auto driver = at.find("driver")) {
        driver->require_object();
        if (const auto release = driver->find("release")) check_string_or_unavailable(*release);
    }
    if (const auto devices = at.find("devices")) {
        devices->for_each_element([](const JsonAt& device) {
            device.require_object();
            const auto model = device.find("driver_model");
            if (!model) return;
            model->require_object();
            for (const char* key : {"current", "pending"}) {
                if (const auto value = model->find(key)) check_string_or_unavailable(*value);
            }
        });
    }
    if (const auto replayed = at.find("replayed")) replayed->boolean();
}

void check_replay_block(const JsonAt& at) {
    at.require_object();
    for (const char* key : {"source", "source_backend", "script", "note"}) at.field(key).string();
    // The note is what no reader may miss: exactly the words the writer puts there (the schema's const).
    if (const JsonAt note = at.field("note"); note.string() != replay_note) {
        note.fail("must be \"" + std::string(replay_note) + "\"");
    }
}

}  // namespace

std::string to_string(Status s) {
    switch (s) {
        case Status::ok:
            return "ok";
        case Status::waived:
            return "waived";
        case Status::failed:
            return "failed";
        case Status::timeout:
            return "timeout";
        case Status::disturbed:
            return "disturbed";
    }
    return "failed";  // unreachable for valid enum values
}

Status status_from_string(const std::string& s) {
    if (s == "ok") return Status::ok;
    if (s == "waived") return Status::waived;
    if (s == "failed") return Status::failed;
    if (s == "timeout") return Status::timeout;
    if (s == "disturbed") return Status::disturbed;
    throw InputError("unknown status '" + s + "' (expected ok, waived, failed, timeout or disturbed)");
}

json to_json(const RepeatRecord& r) {
    json snapshots = json::array();
    for (const auto& s : r.snapshots) snapshots.push_back(s);
    json timings = json::object();
    for (const auto& [name, ms] : r.timings_ms) timings[name] = ms;
    json phases = json::object();
    for (const auto& [name, ms] : r.phases_ms) phases[name] = ms;
    return json{{"index", r.index},
                {"attempt", r.attempt},
                {"status", to_string(r.status)},
                {"error", r.error},
                {"pid", r.pid},
                {"nonce", r.nonce},
                {"wall_ms", r.wall_ms},
                {"parent_wait_ms", r.parent_wait_ms},
                {"parent_settled", r.parent_settled},
                {"timings_ms", std::move(timings)},
                {"phases_ms", std::move(phases)},
                {"snapshots", std::move(snapshots)},
                {"output_tail", r.output_tail},
                {"data", r.data.is_object() ? r.data : json::object()},
                {"disturbance", r.disturbance}};
}

RepeatRecord repeat_from_json(const json& j) {
    return repeat_from(JsonAt(j, "", "repeat"), results_schema_version);
}

json to_json(const ResultsDocument& doc) {
    json runs = json::array();
    for (const auto& run : doc.runs) runs.push_back(to_json(run));
    // The version written is always this build's: a document is only ever written in the
    // format this code reads back.
    return json{{"schema", results_schema_name},
                {"schema_version", results_schema_version},
                {"measurement_id", doc.measurement_id},
                {"backend", doc.backend},
                {"replay", replay_block(doc)},
                {"tool", object_or_empty(doc.tool)},
                {"command", doc.command},
                {"started_at", doc.started_at},
                {"finished_at", doc.finished_at},
                {"complete", doc.complete},
                {"interrupted", doc.interrupted},
                {"resumed", doc.resumed.is_array() ? doc.resumed : json::array()},
                {"environment", object_or_empty(doc.environment)},
                {"controls", object_or_empty(doc.controls)},
                {"scenario", object_or_empty(doc.scenario)},
                {"runs", std::move(runs)}};
}

namespace {

// The rules of a valid results file beyond its fields (docs/results-schema.md, "Rules beyond the
// schema"), the same as pinreport's (check_results_rules in reports/pinreport/readers/validate.py); both are
// tested on harness/tests/fixtures/results-validity/. A duplicate run id and a run id that
// differs from its plan.id are refused where each run is read.
void check_results_rules(const ResultsDocument& doc, const JsonAt& root) {
    const json* scenarios = doc.scenario.is_object() && doc.scenario.contains("scenarios")
                                ? &doc.scenario.at("scenarios")
                                : nullptr;
    // The scenario record names the scenarios the plan came from (a scenario file has at least one).
    const bool named = scenarios != nullptr && scenarios->is_array() && !scenarios->empty() &&
                       std::all_of(scenarios->begin(), scenarios->end(), [](const json& s) {
                           return s.is_object() && s.contains("name") && s.at("name").is_string();
                       });
    const bool measured = doc.backend == "cuda";
    std::set<std::string> names;
    if (named) {
        for (const json& s : *scenarios) names.insert(s.at("name").get<std::string>());
    }
    if (named && measured) {
        const JsonAt runs = root.field("runs");
        for (std::size_t i = 0; i < doc.runs.size(); ++i) {
            const std::string& scenario = doc.runs[i].run.scenario;
            if (!names.contains(scenario)) {
                runs.element(i)
                    .field("plan")
                    .field("scenario")
                    .fail("'" + scenario + "' is not a scenario of scenario.scenarios");
            }
        }
    }
    if (!doc.complete) return;
    const JsonAt complete = root.field("complete");
    if (!doc.interrupted.is_null()) {
        complete.fail("true, but interrupted is set (an interrupted file is partial)");
    }
    if (doc.runs.empty()) complete.fail("true, but runs is empty (a complete file holds every planned run)");
    bool only = !only_globs(doc.command).empty();
    if (doc.resumed.is_array()) {
        for (const json& part : doc.resumed) {
            if (part.is_object() && part.contains("command") && part.at("command").is_array()) {
                std::vector<std::string> command;
                for (const json& a : part.at("command")) {
                    command.push_back(a.is_string() ? a.get<std::string>() : "");
                }
                only = only || !only_globs(command).empty();
            }
        }
    }
    if (!named || !measured || only) return;
    std::set<std::string> ran;
    for (const RunRecord& run : doc.runs) ran.insert(run.run.scenario);
    for (std::size_t k = 0; k < scenarios->size(); ++k) {
        const std::string name = scenarios->at(k).at("name").get<std::string>();
        if (!ran.contains(name)) {
            complete.fail("true, but scenario.scenarios[" + std::to_string(k) + "] ('" + name +
                          "') has no run (a complete file holds every planned run)");
        }
    }
}

}  // namespace

ResultsDocument results_from_json(const json& j, const std::string& path_for_messages) {
    const std::string& file = path_for_messages;
    const JsonAt root(j, file, "");
    root.require_object();

    // Name and version first: a document of another kind or version is reported as such,
    // not as a list of missing fields.
    if (!j.contains("schema")) {
        throw InputError(file + ": not a pinbench results file (no \"schema\" field)");
    }
    if (!j["schema"].is_string() || j["schema"].get<std::string>() != results_schema_name) {
        throw InputError(file + ": not a pinbench results file (schema is " + j["schema"].dump() +
                         ", expected \"" + results_schema_name + "\")");
    }
    const std::int64_t version = root.field("schema_version").integer();
    // Version 1 is version 2 without kind parameters and repeat data, version 2 is version 3
    // without disturbance, attempts, measurement_id, interrupted and resumed, version 3 is
    // version 4 without the metrics' samples, version 4 is version 5 without the runs' stopping
    // record and the repeats' phases; all read alike, then upgraded below.
    if (version < 1 || version > results_schema_version) {
        throw InputError(file + ": results schema version " + std::to_string(version) +
                         " is not supported (this build reads versions 1 to " +
                         std::to_string(results_schema_version) + ")");
    }

    ResultsDocument doc;
    doc.schema_version = static_cast<int>(version);
    const JsonAt backend = root.field("backend");
    doc.backend = backend.string();
    if (doc.backend != "cuda" && doc.backend != "replay") {
        backend.fail("unknown backend '" + doc.backend + "' (expected cuda or replay)");
    }
    const JsonAt replay = root.field("replay");
    if (doc.backend == "replay") {
        check_replay_block(replay);
    } else if (!replay.json().is_null()) {
        replay.fail("must be null when backend is cuda (a replayed document says backend \"replay\")");
    }
    doc.replay = replay.json();

    const JsonAt tool = root.field("tool");
    tool.require_object();
    doc.tool = tool.json();
    root.field("command").for_each_element([&](const JsonAt& arg) { doc.command.push_back(arg.string()); });
    doc.started_at = root.field("started_at").string();
    doc.finished_at = root.field("finished_at").string();
    doc.complete = root.field("complete").boolean();
    // Required from version 3; where an older file has them, of the same types.
    if (version >= 3 || root.has("measurement_id")) {
        const std::string id = root.field("measurement_id").string();
        if (version >= 3) doc.measurement_id = id;
    }
    if (version >= 3 || root.has("interrupted")) {
        const JsonAt interrupted = root.field("interrupted");
        if (!interrupted.json().is_null()) interrupted.require_object();
        if (version >= 3) doc.interrupted = interrupted.json();
    }
    if (version >= 3 || root.has("resumed")) {
        const JsonAt resumed = root.field("resumed");
        resumed.for_each_element([](const JsonAt& part) { part.require_object(); });
        if (version >= 3) doc.resumed = resumed.json();
    }
    for (const auto& [name, target] :
         {std::pair{"environment", &doc.environment}, std::pair{"controls", &doc.controls},
          std::pair{"scenario", &doc.scenario}}) {
        const JsonAt at = root.field(name);
        at.require_object();
        *target = at.json();
    }
    check_environment(root.field("environment"));

    std::set<std::string> ids;
    root.field("runs").for_each_element([&](const JsonAt& at) {
        RunRecord run = run_from(at, version);
        if (!ids.insert(run.run.id).second) at.field("id").fail("duplicate run id '" + run.run.id + "'");
        doc.runs.push_back(std::move(run));
    });
    check_results_rules(doc, root);
    if (version < results_schema_version) upgrade_metrics(doc);
    return doc;
}

ResultsDocument load_results(const std::string& path) {
    std::string text;
    try {
        text = read_file(path);
    } catch (const SystemError& e) {
        // An unreadable input file is bad input (exit code 2), like an invalid one.
        throw InputError(std::string("cannot read results file: ") + e.what());
    }
    // Strict JSON (json_reader.hpp): refuses what pinreport refuses (BOM, NaN, 10^400, ...).
    const json j = detail::parse_strict_json(text, path);
    return results_from_json(j, path);
}

std::vector<std::string> only_globs(const std::vector<std::string>& command) {
    std::vector<std::string> globs;
    bool in_only = false;
    for (const std::string& a : command) {
        if (a.rfind("--only=", 0) == 0) {
            globs.push_back(a.substr(7));
            in_only = false;
        } else if (a == "--only") {
            in_only = true;
        } else if (in_only && !a.empty() && a[0] != '-') {
            globs.push_back(a);
        } else {
            in_only = false;
        }
    }
    return globs;
}

}  // namespace pinbench
