// The results file: lossless round trip, and every rejection names the file and JSON path.
#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "pinbench/results/results.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

using nlohmann::json;

const std::string fixtures = std::string(PINBENCH_FIXTURES) + "/results/";

PlannedRun planned(const std::string& id, std::uint64_t size) {
    PlannedRun p;
    p.id = id;
    p.scenario = "quick";
    p.kind = "overhead";
    p.api = ApiVariant{ApiFamily::host_alloc, flag_portable | flag_mapped};
    p.size = size;
    p.count = 2;
    p.gpus = 1;
    p.repeats = 2;
    p.timeout_s = 30.5;
    p.driver_models = {"WDDM", "linux"};
    return p;
}

RepeatRecord repeat(int index, Status status) {
    RepeatRecord r;
    r.index = index;
    r.status = status;
    r.error = status == Status::ok ? "" : "cudaHostAlloc failed: cudaErrorMemoryAllocation";
    r.pid = 4'000'000'000u;  // pids are unsigned 32-bit on Windows
    r.nonce = "n-" + std::to_string(index);
    r.wall_ms = 0.1 + 0.2;  // not exactly 0.3: the double must survive as it is
    r.parent_wait_ms = 12.0;
    r.parent_settled = index % 2 == 0;
    Snapshot before;
    before.label = "after_context";
    before.t_ms = 1.0 / 3.0;
    before.readings["cuda.free"] = Reading::of(150'000'000'000);
    before.readings["nvml.0.process_used"] = Reading::not_available("not available under WDDM");
    Snapshot after = before;
    after.label = "after_first_use";
    after.stable = false;
    after.settle_ms = 250;
    after.readings["cuda.free"] = Reading::of(149'997'902'848);
    r.snapshots = {before, after};
    r.timings_ms = {{"alloc", 4.25}, {"first_use", 1e-3}};
    r.output_tail = status == Status::ok ? "" : "line 1\nline \"2\"\n";
    return r;
}

ResultsDocument sample_doc() {
    ResultsDocument doc;
    doc.tool = {{"name", "pinbench"}, {"version", "0.1.0"}, {"built_with", {{"cuda", "12.9"}}}};
    doc.command = {"pinbench", "run", "scenarios/quick.yaml", "--out", "r.json"};
    doc.started_at = "2025-06-01T10:00:00Z";
    doc.finished_at = "2025-06-01T10:02:00Z";
    doc.complete = true;
    doc.environment = {{"driver", {{"release", "566.36"}}}, {"devices", json::array()}};
    doc.controls = {{"null", {{"granule", {{"cuda.free", 2097152}}}}}};
    doc.scenario = {{"path", "scenarios/quick.yaml"}};

    RunRecord ok;
    ok.run = planned("quick/cudaHostAlloc:portable+mapped/64MiB/x2/g1", 64ULL << 20);
    ok.repeats = {repeat(0, Status::ok), repeat(1, Status::ok)};
    ok.metrics["cost.after_first_use.cuda.free"] = {"bytes", Summary{2, 2097152, 2097152, 2097152, 0},
                                                    2097152, false, std::vector<double>{2097152, 2097152}};
    // Not what the repeats' timings give (4.25 twice): an upgrade could not rebuild it.
    ok.metrics["time.alloc_ms"] = {"ms", Summary{2, 4.25, 4.0, 4.5, 0.25}, std::nullopt, false,
                                   std::vector<double>{4.5, 4.0}};
    RunRecord failed;
    failed.run = planned("quick/cudaHostAlloc:portable+mapped/8GiB/x2/g1", 8ULL << 30);
    failed.status = Status::failed;
    failed.reason = "out of memory";
    failed.repeats = {repeat(0, Status::failed)};
    RunRecord waived;
    waived.run = planned("quick/cudaHostAlloc:portable+mapped/64MiB/x2/g2", 64ULL << 20);
    waived.status = Status::waived;
    waived.reason = "needs 2 GPUs, 1 present";
    doc.runs = {ok, failed, waived};
    return doc;
}

std::string error_of(const json& j) {
    try {
        results_from_json(j, "r.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

TEST(ResultsJson, WriterHeader) {
    const json j = to_json(sample_doc());
    EXPECT_EQ(j.at("schema"), "pinbench.results");
    EXPECT_EQ(j.at("schema_version"), 5);
    EXPECT_EQ(j.at("backend"), "cuda");
    EXPECT_TRUE(j.at("replay").is_null());
    EXPECT_EQ(j.at("runs").size(), 3u);
    EXPECT_EQ(j.at("runs")[0].at("id"), j.at("runs")[0].at("plan").at("id"));
    EXPECT_TRUE(j.at("runs")[0].at("metrics").at("time.alloc_ms").at("granule").is_null());
    EXPECT_EQ(j.at("runs")[0].at("metrics").at("cost.after_first_use.cuda.free").at("granule"), 2097152);
    EXPECT_EQ(j.at("runs")[0].at("metrics").at("time.alloc_ms").at("samples"), json::parse("[4.5, 4.0]"));
}

TEST(ResultsJson, SamplesMatchTheirCount) {
    json j = to_json(sample_doc());
    j["runs"][0]["metrics"]["time.alloc_ms"]["samples"] = {4.5};
    EXPECT_EQ(error_of(j),
              "r.json: runs[0].metrics[\"time.alloc_ms\"].samples: holds 1 samples where n is 2");
    j["runs"][0]["metrics"]["time.alloc_ms"]["samples"] = {4.5, "4"};
    EXPECT_EQ(error_of(j),
              "r.json: runs[0].metrics[\"time.alloc_ms\"].samples[1]: expected a number, found string");
    j["runs"][0]["metrics"]["time.alloc_ms"].erase("samples");
    EXPECT_EQ(error_of(j), "r.json: runs[0].metrics[\"time.alloc_ms\"].samples: missing required field");
    j["runs"][0]["metrics"]["time.alloc_ms"]["samples"] = nullptr;  // an upgraded metric without samples
    EXPECT_EQ(error_of(j), "no error");
}

// A version 3 file has summaries only: reading it rebuilds each metric's samples from the
// repeats, and keeps them where they summarise to the stored summary.
TEST(ResultsJson, OlderVersionsAreUpgradedWhenRead) {
    json j = to_json(sample_doc());
    j["schema_version"] = 3;
    for (auto& [name, m] : j["runs"][0]["metrics"].items()) m.erase("samples");
    const ResultsDocument doc = results_from_json(j, "r.json");
    const auto& metrics = doc.runs[0].metrics;
    // cuda.free: 150'000'000'000 - 149'997'902'848 = 2097152 in both ok repeats, as stored.
    EXPECT_EQ(metrics.at("cost.after_first_use.cuda.free").samples, (std::vector<double>{2097152, 2097152}));
    // alloc is 4.25 ms in both repeats, but the stored summary says 4.0 to 4.5: left empty.
    EXPECT_FALSE(metrics.at("time.alloc_ms").samples.has_value());
    EXPECT_EQ(metrics.at("time.alloc_ms").stats.min, 4.0);
    // Written again, the document is version 4; the metric it could not rebuild says null.
    const json written = to_json(doc);
    EXPECT_EQ(written.at("schema_version"), 5);
    EXPECT_TRUE(written.at("runs")[0].at("metrics").at("time.alloc_ms").at("samples").is_null());
}

// A version 2 workers run read its context with the worker's workspace (the committed H200
// nightly of 2026-11-30): that sum is renamed, with its samples rebuilt under the new name; a
// version 3 file, which reads the context alone, keeps the name.
TEST(ResultsJson, AVersion2WorkersContextIsTheContextWithTheWorkspace) {
    const std::string results = std::string(PINBENCH_SOURCE_DIR) + "/results/";
    const std::string id = "nightly-workers/cudaMallocHost/1GiB/x1/g1/workers=1/variant=per_process";
    const auto run_of = [&](const ResultsDocument& doc) {
        const auto it = std::find_if(doc.runs.begin(), doc.runs.end(),
                                     [&](const RunRecord& r) { return r.run.id == id; });
        return it == doc.runs.end() ? RunRecord{} : *it;
    };
    const RunRecord v2 = run_of(load_results(results + "h200-kinds-nightly/results.json"));
    EXPECT_FALSE(v2.metrics.contains("workers.context_per_worker.cuda.free"));
    const MetricSummary& sum = v2.metrics.at("workers.context_and_workspace_per_worker.cuda.free");
    EXPECT_EQ(sum.samples, (std::vector<double>{618201088, 618201088, 618201088}));  // 589.6 MiB
    const RunRecord v3 = run_of(load_results(results + "h200-watch-cost/nightly-watch-on.json"));
    EXPECT_EQ(v3.metrics.at("workers.context_per_worker.cuda.free").stats.median, 548995072);  // 523.6 MiB
    EXPECT_FALSE(v3.metrics.contains("workers.context_and_workspace_per_worker.cuda.free"));
}

// Version 5: a run's stopping record and a repeat's phases are written and read back; a version
// 4 file has neither and reads as it is; a version 5 file without the record is refused.
TEST(ResultsJson, StoppingAndPhasesRoundTripAndAVersion4FileHasNone) {
    ResultsDocument doc = sample_doc();
    doc.runs[0].stopping = Stopping{5, 3, "agreed: 3 repeats identical to the byte"};
    doc.runs[0].repeats[0].phases_ms = {{"start", 12.5}, {"measure", 250.0}, {"exit", 90.25}};
    const json j = to_json(doc);
    EXPECT_EQ(j.at("runs")[0].at("stopping"),
              (json{{"planned", 5}, {"stopped_at", 3}, {"why", "agreed: 3 repeats identical to the byte"}}));
    EXPECT_TRUE(j.at("runs")[1].at("stopping").is_null());
    const ResultsDocument back = results_from_json(json::parse(j.dump()), "r.json");
    ASSERT_TRUE(back.runs[0].stopping.has_value());
    EXPECT_EQ(back.runs[0].stopping->planned, 5);
    EXPECT_EQ(back.runs[0].stopping->stopped_at, 3);
    EXPECT_EQ(back.runs[0].stopping->why, "agreed: 3 repeats identical to the byte");
    EXPECT_FALSE(back.runs[1].stopping.has_value());
    EXPECT_EQ(back.runs[0].repeats[0].phases_ms.at("exit"), 90.25);
    EXPECT_EQ(to_json(back), j);

    json v4 = j;
    v4["schema_version"] = 4;
    for (auto& run : v4["runs"]) {
        run.erase("stopping");
        for (auto& r : run["repeats"]) r.erase("phases_ms");
    }
    const ResultsDocument old = results_from_json(v4, "r.json");
    EXPECT_FALSE(old.runs[0].stopping.has_value());
    EXPECT_TRUE(old.runs[0].repeats[0].phases_ms.empty());

    json missing = j;
    missing["runs"][0].erase("stopping");
    EXPECT_NE(error_of(missing).find("stopping: missing required field"), std::string::npos)
        << error_of(missing);
    json more = j;
    more["runs"][0]["stopping"]["stopped_at"] = 6;
    EXPECT_NE(error_of(more).find("stopped_at: more than the planned 5"), std::string::npos)
        << error_of(more);
}

TEST(ResultsJson, RoundTripIsLossless) {
    const ResultsDocument doc = sample_doc();
    const json first = to_json(doc);
    const ResultsDocument back = results_from_json(json::parse(first.dump()), "mem.json");
    EXPECT_EQ(to_json(back), first);

    // And field by field, for what JSON equality could hide (e.g. the exact doubles).
    ASSERT_EQ(back.runs.size(), 3u);
    const RunRecord& run = back.runs[0];
    EXPECT_EQ(run.run.id, doc.runs[0].run.id);
    EXPECT_EQ(run.run.api, doc.runs[0].run.api);
    EXPECT_EQ(run.run.driver_models, doc.runs[0].run.driver_models);
    ASSERT_EQ(run.repeats.size(), 2u);
    EXPECT_EQ(run.repeats[0].wall_ms, 0.1 + 0.2);
    EXPECT_EQ(run.repeats[0].pid, 4'000'000'000u);
    EXPECT_EQ(run.repeats[1].parent_settled, false);
    EXPECT_EQ(run.repeats[0].snapshots[0].t_ms, 1.0 / 3.0);
    EXPECT_EQ(run.repeats[0].snapshots[1].readings, doc.runs[0].repeats[0].snapshots[1].readings);
    EXPECT_EQ(run.repeats[0].timings_ms, doc.runs[0].repeats[0].timings_ms);
    EXPECT_EQ(run.metrics.at("cost.after_first_use.cuda.free").granule, 2097152);
    EXPECT_FALSE(run.metrics.at("time.alloc_ms").granule.has_value());
    EXPECT_EQ(run.metrics.at("time.alloc_ms").stats.mad, 0.25);
    EXPECT_EQ(run.metrics.at("time.alloc_ms").samples, (std::vector<double>{4.5, 4.0}));  // repeat order kept
    EXPECT_EQ(back.runs[1].status, Status::failed);
    EXPECT_EQ(back.runs[1].repeats[0].output_tail, "line 1\nline \"2\"\n");
    EXPECT_EQ(back.runs[2].status, Status::waived);
    EXPECT_EQ(back.runs[2].reason, "needs 2 GPUs, 1 present");
    EXPECT_TRUE(back.runs[2].repeats.empty());
    EXPECT_EQ(back.command, doc.command);
    EXPECT_EQ(back.environment, doc.environment);
    EXPECT_EQ(back.controls, doc.controls);
}

TEST(ResultsJson, ReplayDocumentsCarryTheNote) {
    ResultsDocument doc = sample_doc();
    doc.backend = "replay";
    doc.replay = {
        {"source", "results/real.json"}, {"source_backend", "cuda"}, {"script", "replay/wddm.yaml"}};
    const json j = to_json(doc);
    EXPECT_EQ(j.at("replay").at("note"), "REPLAYED DATA derived from a real results file; not a measurement");
    const ResultsDocument back = results_from_json(j, "replayed.json");
    EXPECT_EQ(back.backend, "replay");
    EXPECT_EQ(back.replay.at("source"), "results/real.json");
    EXPECT_EQ(to_json(back), j);
}

TEST(ResultsJson, WriterRefusesInconsistentBackends) {
    ResultsDocument doc = sample_doc();
    doc.replay = {{"source", "x"}};
    EXPECT_THROW(to_json(doc), std::invalid_argument);  // cuda with a replay block
    doc.backend = "replay";
    doc.replay = nullptr;
    EXPECT_THROW(to_json(doc), std::invalid_argument);
    doc.backend = "simulated";
    EXPECT_THROW(to_json(doc), std::invalid_argument);
}

TEST(ResultsJson, RejectsOtherSchemas) {
    json j = to_json(sample_doc());
    j.erase("schema");
    EXPECT_EQ(error_of(j), "r.json: not a pinbench results file (no \"schema\" field)");
    j["schema"] = "pinbench.baseline";
    EXPECT_EQ(error_of(j),
              "r.json: not a pinbench results file (schema is \"pinbench.baseline\", expected "
              "\"pinbench.results\")");
    j["schema"] = "pinbench.results";
    j["schema_version"] = 6;
    EXPECT_EQ(error_of(j),
              "r.json: results schema version 6 is not supported (this build reads versions 1 to 5)");
    j["schema_version"] = 0;
    EXPECT_EQ(error_of(j),
              "r.json: results schema version 0 is not supported (this build reads versions 1 to 5)");
    j["schema_version"] = "1";
    EXPECT_EQ(error_of(j), "r.json: schema_version: expected an integer, found string");
    j.erase("schema_version");
    EXPECT_EQ(error_of(j), "r.json: schema_version: missing required field");
    EXPECT_EQ(error_of(json::array()), "r.json: (document): expected an object, found array");
}

TEST(ResultsJson, MissingFieldsNameTheirPath) {
    json j = to_json(sample_doc());
    j["runs"][1]["repeats"][0].erase("status");
    EXPECT_EQ(error_of(j), "r.json: runs[1].repeats[0].status: missing required field");

    j = to_json(sample_doc());
    j.erase("environment");
    EXPECT_EQ(error_of(j), "r.json: environment: missing required field");

    j = to_json(sample_doc());
    j["runs"][0]["repeats"][1]["snapshots"][0].erase("readings");
    EXPECT_EQ(error_of(j), "r.json: runs[0].repeats[1].snapshots[0].readings: missing required field");

    j = to_json(sample_doc());
    j["runs"][0]["metrics"]["time.alloc_ms"].erase("granule");
    EXPECT_EQ(error_of(j), "r.json: runs[0].metrics[\"time.alloc_ms\"].granule: missing required field");
}

TEST(ResultsJson, WrongTypesNameTheirPath) {
    json j = to_json(sample_doc());
    j["complete"] = "yes";
    EXPECT_EQ(error_of(j), "r.json: complete: expected true or false, found string");

    j = to_json(sample_doc());
    j["command"][2] = 3;
    EXPECT_EQ(error_of(j), "r.json: command[2]: expected a string, found integer");

    j = to_json(sample_doc());
    j["runs"][0]["repeats"][0]["status"] = "great";
    EXPECT_EQ(error_of(j),
              "r.json: runs[0].repeats[0].status: unknown value \"great\" (expected ok, waived, "
              "failed, timeout or disturbed)");

    j = to_json(sample_doc());
    j["runs"][0]["repeats"][0]["snapshots"][1]["readings"]["cuda.free"] = 1.5;
    EXPECT_EQ(error_of(j),
              "r.json: runs[0].repeats[0].snapshots[1].readings[\"cuda.free\"]: expected an integer "
              "or an object, found number 1.5");

    j = to_json(sample_doc());
    j["runs"][0]["metrics"]["time.alloc_ms"]["unit"] = "s";
    EXPECT_EQ(
        error_of(j),
        "r.json: runs[0].metrics[\"time.alloc_ms\"].unit: unknown value \"s\" (expected bytes, ms, ratio "
        "or count)");

    j = to_json(sample_doc());
    j["runs"][0]["repeats"][0]["pid"] = -1;
    EXPECT_EQ(error_of(j), "r.json: runs[0].repeats[0].pid: -1 is less than the minimum of 0");

    j = to_json(sample_doc());
    j["controls"] = nullptr;
    EXPECT_EQ(error_of(j), "r.json: controls: expected an object, found null");
}

TEST(ResultsJson, RunsMustBeConsistent) {
    json j = to_json(sample_doc());
    j["runs"][0]["id"] = "other";
    EXPECT_EQ(error_of(j).rfind("r.json: runs[0].id: 'other' differs from plan.id", 0), 0u) << error_of(j);

    j = to_json(sample_doc());
    j["runs"][2] = j["runs"][0];
    EXPECT_EQ(error_of(j),
              "r.json: runs[2].id: duplicate run id 'quick/cudaHostAlloc:portable+mapped/64MiB/x2/g1'");

    j = to_json(sample_doc());
    j["runs"][1]["plan"].erase("kind");
    EXPECT_EQ(error_of(j), "r.json: runs[1].plan.kind: missing required field");
}

TEST(ResultsJson, BackendAndReplayBlockAgree) {
    json j = to_json(sample_doc());
    j["backend"] = "replay";
    EXPECT_EQ(error_of(j), "r.json: replay: expected an object, found null");
    j["replay"] = {{"source", "a.json"}, {"source_backend", "cuda"}, {"script", "s.yaml"}};
    EXPECT_EQ(error_of(j), "r.json: replay.note: missing required field");
    j["replay"]["note"] = "REPLAYED DATA derived from a real results file; not a measurement";
    j["backend"] = "cuda";
    EXPECT_EQ(error_of(j), "r.json: replay: expected null, found object");
    j["backend"] = "sim";
    EXPECT_EQ(error_of(j), "r.json: backend: unknown value \"sim\" (expected cuda or replay)");
}

TEST(RepeatJson, RoundTripAndErrors) {
    const RepeatRecord r = repeat(3, Status::timeout);
    const RepeatRecord back = repeat_from_json(to_json(r));
    EXPECT_EQ(to_json(back), to_json(r));
    EXPECT_EQ(back.status, Status::timeout);
    json j = to_json(r);
    j["timings_ms"]["alloc"] = "fast";
    try {
        repeat_from_json(j);
        FAIL() << "accepted a string timing";
    } catch (const InputError& e) {
        EXPECT_STREQ(e.what(), "repeat.timings_ms.alloc: expected a number, found string");
    }
}

TEST(StatusNames, RoundTripAndReject) {
    for (Status s : {Status::ok, Status::waived, Status::failed, Status::timeout}) {
        EXPECT_EQ(status_from_string(to_string(s)), s);
    }
    EXPECT_EQ(to_string(Status::timeout), "timeout");
    EXPECT_THROW(status_from_string("OK"), InputError);
}

TEST(LoadResults, ReadsAHandWrittenFile) {
    const ResultsDocument doc = load_results(fixtures + "valid_v1.json");
    EXPECT_EQ(doc.backend, "cuda");
    EXPECT_TRUE(doc.complete);
    ASSERT_EQ(doc.runs.size(), 1u);
    const RunRecord& run = doc.runs[0];
    EXPECT_EQ(run.run.size, 64ULL << 20);
    EXPECT_EQ(run.repeats[0].snapshots[1].readings.at("cuda.free"), Reading::of(149'997'902'848));
    EXPECT_FALSE(run.repeats[0].snapshots[1].readings.at("nvml.0.process_used").available());
    EXPECT_EQ(run.metrics.at("cost.after_first_use.cuda.free").stats.median, 2097152.0);
    EXPECT_EQ(run.metrics.at("cost.after_first_use.cuda.free").granule, 2097152);
}

std::string load_error(const std::string& name) {
    try {
        load_results(fixtures + name);
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

TEST(LoadResults, RejectsWithTheFileName) {
    EXPECT_EQ(
        load_error("version6.json"),
        fixtures +
            "version6.json: results schema version 6 is not supported (this build reads versions 1 to 5)");
    EXPECT_EQ(
        load_error("not_results.json").rfind(fixtures + "not_results.json: not a pinbench results file", 0),
        0u);
    // The second comma is the 31st byte.
    EXPECT_EQ(
        load_error("syntax_error.json").rfind(fixtures + "syntax_error.json: invalid JSON at byte 31: ", 0),
        0u)
        << load_error("syntax_error.json");
    EXPECT_NE(load_error("does_not_exist.json").find("does_not_exist.json"), std::string::npos);
}

}  // namespace
}  // namespace pinbench
