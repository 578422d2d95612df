// The results file: one JSON document per invocation of `pinbench run` (schema in
// docs/results-schema.md; version constant below, mirrored by reports/pinreport/schema.py).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pinbench/probes/snapshot.hpp"
#include "pinbench/results/statistics.hpp"
#include "pinbench/scenario/plan.hpp"

namespace pinbench {

inline constexpr const char* results_schema_name = "pinbench.results";
// Version 2 (scenario kinds) adds plan.params and repeats[].data; version 3 adds the status
// "disturbed", repeat attempts and disturbance evidence, measurement_id, interrupted and
// resumed; version 4 the per-repeat samples of every metric; version 5 each run's stopping
// record (how many repeats were planned, how many were measured and why) and each repeat's
// phases (docs/results-schema.md, with the version plan). Versions 1 to 4 still read: the reader
// upgrades 1 to 3 (results_upgrade.cpp); a version 4 file is version 5 without those two fields.
inline constexpr int results_schema_version = 5;

// Every planned run and every repeat ends with one of these; "not measured" is never 0.
// disturbed: another process moved device memory inside the measuring window and retries
// did not get a clean repeat (docs/disturbance.md).
enum class Status { ok, waived, failed, timeout, disturbed };
std::string to_string(Status s);
Status status_from_string(const std::string& s);  // throws InputError

struct RepeatRecord {
    int index = 0;
    int attempt = 0;  // 0 first; a disturbed attempt is retried under the same index
    Status status = Status::ok;
    std::string error;  // failed/timeout: what happened (CUDA API + error name, signal, ...)
    std::uint32_t pid = 0;
    std::string nonce;  // ties the child's report to this repeat
    double wall_ms = 0;
    double parent_wait_ms = 0;   // how long the parent waited for the device to settle
    bool parent_settled = true;  // false when usage never returned to its pre-run level
    std::vector<Snapshot> snapshots;
    std::map<std::string, double> timings_ms;  // "context", "alloc", "first_use", "free"
    // Where the attempt's time went (version 5; empty in older files and for replayed
    // repeats): "wait_before" (the parent's wait for the devices), "start" (the child's process
    // start, until its main), "measure" (main until the response is written), "exit" (the
    // response until the process ended: the driver's teardown), "return_wait" (the parent's
    // wait for device usage to come back). Docs: results-schema.md "Phases".
    std::map<std::string, double> phases_ms;
    std::string output_tail;                         // child's output when it did not end cleanly
    nlohmann::json data = nlohmann::json::object();  // kind-specific measurements (docs/kinds.md)
    // Null or {"probes": [keys], "evidence": [{..., "text"}]}: what another process did inside
    // this attempt's window, as the parent's device watch saw it (docs/disturbance.md).
    nlohmann::json disturbance;
};

struct MetricSummary {
    std::string unit;                     // "bytes", "ms", "ratio" or "count"
    Summary stats;                        // over the ok repeats
    std::optional<std::int64_t> granule;  // bytes metrics: the probe key's granule (null control)
    bool disturbed = false;               // its probe was disturbed in a repeat of this run: never judged
    // The value in each ok repeat, in repeat order (version 4): what pinreport judges. Empty
    // only for a metric of an older file that the upgrade could not rebuild (never judged).
    std::optional<std::vector<double>> samples;
};

// How many repeats a run measured and why (version 5; docs/scenario-format.md, "Stopping early").
struct Stopping {
    int planned = 0;     // the scenario's repeats
    int stopped_at = 0;  // repeat indices measured (every attempt of them in `repeats`)
    std::string why;     // "agreed: ...", "all repeats: ...", "waived", ...
};

struct RunRecord {
    PlannedRun run;
    Status status = Status::ok;         // ok when every repeat is ok; else the worst repeat's status
    std::string reason;                 // waived/failed/disturbed: why
    std::vector<RepeatRecord> repeats;  // every attempt, disturbed ones included
    // Null, or {"attempts": N, "probes": [keys], "evidence": [...]} when any attempt was disturbed.
    nlohmann::json disturbance;
    std::map<std::string, MetricSummary> metrics;  // e.g. "cost.after_first_use.cuda.free"
    std::optional<Stopping> stopping;              // null: not measured here, or an older file
};

struct ResultsDocument {
    int schema_version = results_schema_version;
    std::string measurement_id;    // random, written when measuring starts; kept by --resume
    std::string backend = "cuda";  // "cuda" or "replay"
    nlohmann::json replay;         // backend replay: {"source":..., "script":..., "source_backend":...}
    nlohmann::json tool;           // name, version, built_with (CUDA toolkit), compiler
    std::vector<std::string> command;
    std::string started_at, finished_at;  // ISO 8601 UTC
    bool complete = false;                // false while running / when interrupted
    nlohmann::json interrupted;           // null, or {signal, at, run_id, repeat} (docs/results-schema.md)
    nlohmann::json resumed = nlohmann::json::array();  // parts this file was resumed from
    nlohmann::json environment;
    nlohmann::json controls;  // null control (noise, granule per key), positive control
    nlohmann::json scenario;  // the scenario file as parsed (path, scenarios)
    std::vector<RunRecord> runs;
};

nlohmann::json to_json(const ResultsDocument& doc);
nlohmann::json to_json(const RepeatRecord& r);
RepeatRecord repeat_from_json(const nlohmann::json& j);
// Rejects documents with another schema name or version, naming the file and what it found.
// An older version is upgraded as it is read (results_upgrade.cpp): its metrics get samples.
ResultsDocument results_from_json(const nlohmann::json& j, const std::string& path_for_messages);
ResultsDocument load_results(const std::string& path);
// The --only globs of a command line a results file recorded ("--only G ...", "--only=G"):
// what --resume selects again, and why a complete file may hold only some scenarios' runs.
std::vector<std::string> only_globs(const std::vector<std::string>& command);

}  // namespace pinbench
