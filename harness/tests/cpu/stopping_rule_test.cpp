// The stopping rule end to end (docs/scenario-format.md, "Stopping early"), by the replay backend
// on the committed H200 answer (results/h200-main-answer/quick.json: every overhead run has 5
// repeats identical to the byte): stops at 3 identical, keeps repeating where they differ, never
// stops early beside a disturbed attempt, and is off unless asked (a replay's default, as
// --all-repeats is for a measurement). The record is results schema 5's `stopping`. A replay of
// a source whose run stopped early ends where the source did (docs/replay.md).
#include <gtest/gtest.h>

#include <filesystem>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/results/results.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

const std::string answer = std::string(PINBENCH_SOURCE_DIR) + "/results/h200-main-answer/quick.json";
const std::string run_id = "quick-overhead/cudaMallocHost/64MiB/x1/g1";
// A real schema 5 file measured with the rule on (the H100's first call): its overhead runs
// stopped at 3 of 5 repeats.
const std::string stopped = std::string(PINBENCH_SOURCE_DIR) +
                            "/results/answer-in-a-minute/h100-2026-12-06/first-call/new-quick.json";

fs::path temp_file(const std::string& name) {
    return fs::temp_directory_path() /
           ("pinbench-stopping-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + name);
}

struct Replayed {
    ProcessOutcome outcome;
    ResultsDocument doc;
};

// The replay of `run_id` from `source`, with `extra` arguments.
Replayed replay(const std::string& source, const std::string& name, std::vector<std::string> extra) {
    const auto out = temp_file(name + ".json");
    std::vector<std::string> args = {PINBENCH_EXE, "run",    "--backend", "replay",       "--from",
                                     source,       "--only", run_id,      "--no-summary", "--retry-wait",
                                     "0",          "-o",     out.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    Subprocess p(args, {});
    Replayed r{p.wait(std::chrono::minutes(3)), {}};
    if (r.outcome.kind == ProcessOutcome::Kind::exited && fs::exists(out)) r.doc = load_results(out.string());
    fs::remove(out);
    return r;
}

class StoppingRuleReplay : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_TRUE(fs::exists(answer)) << "committed real results missing: " << answer; }
};

TEST_F(StoppingRuleReplay, StopsAtThreeRepeatsIdenticalToTheByte) {
    const Replayed r = replay(answer, "stops", {"--stop-early"});
    ASSERT_EQ(r.outcome.exit_code, 0) << r.outcome.output;
    ASSERT_EQ(r.doc.runs.size(), 1u);
    const RunRecord& run = r.doc.runs[0];
    EXPECT_EQ(run.repeats.size(), 3u);
    ASSERT_TRUE(run.stopping.has_value());
    EXPECT_EQ(run.stopping->planned, 5);
    EXPECT_EQ(run.stopping->stopped_at, 3);
    EXPECT_EQ(run.stopping->why, "agreed: 3 repeats identical to the byte on all 15 bytes and count metrics");
    EXPECT_EQ(run.metrics.at("cost.after_first_use.cuda.free").stats.n, 3u);
    EXPECT_NE(
        r.outcome.output.find("pinbench: repeats: planned 5, measured 3; 2 saved by the stopping rule in 1 "
                              "runs whose repeats agreed to the byte"),
        std::string::npos)
        << r.outcome.output;
    // Every repeat says where its time went (results schema 5, "Phases").
    for (const auto& rep : run.repeats) {
        for (const char* phase : {"wait_before", "start", "measure", "exit", "return_wait"}) {
            EXPECT_TRUE(rep.phases_ms.contains(phase)) << phase;
        }
    }
}

TEST_F(StoppingRuleReplay, OffItMeasuresEveryPlannedRepeat) {
    // A replay reproduces its source repeat for repeat unless --stop-early: the off switch.
    const Replayed r = replay(answer, "off", {});
    ASSERT_EQ(r.outcome.exit_code, 0) << r.outcome.output;
    const RunRecord& run = r.doc.runs.at(0);
    EXPECT_EQ(run.repeats.size(), 5u);
    ASSERT_TRUE(run.stopping.has_value());
    EXPECT_EQ(run.stopping->stopped_at, 5);
    EXPECT_EQ(run.stopping->why.rfind("all repeats: the stopping rule is off", 0), 0u) << run.stopping->why;
    // --all-repeats and --stop-early contradict each other.
    const Replayed both = replay(answer, "both", {"--stop-early", "--all-repeats"});
    EXPECT_NE(both.outcome.exit_code, 0);
}

TEST_F(StoppingRuleReplay, KeepsRepeatingWhereTheRepeatsDiffer) {
    // The source with one repeat a driver step (2 MiB) dearer after its allocation.
    nlohmann::json doc = nlohmann::json::parse(read_file(answer));
    for (auto& run : doc["runs"]) {
        if (run["id"] != run_id) continue;
        for (auto& s : run["repeats"][1]["snapshots"]) {
            if (s["label"] == "after_alloc") {
                s["readings"]["cuda.free"] = s["readings"]["cuda.free"].get<std::int64_t>() - (2 << 20);
            }
        }
    }
    const auto source = temp_file("differs-source.json");
    write_file_atomically(source.string(), doc.dump());
    const Replayed r = replay(source.string(), "differs", {"--stop-early"});
    fs::remove(source);
    ASSERT_EQ(r.outcome.exit_code, 0) << r.outcome.output;
    const RunRecord& run = r.doc.runs.at(0);
    EXPECT_EQ(run.repeats.size(), 5u) << "the scenario's count where the repeats disagree";
    ASSERT_TRUE(run.stopping.has_value());
    EXPECT_EQ(run.stopping->stopped_at, 5);
    EXPECT_EQ(run.stopping->why.rfind("all repeats: cost.after_alloc.cuda.free differs between repeats", 0),
              0u)
        << run.stopping->why;
}

TEST_F(StoppingRuleReplay, NeverStopsEarlyBesideADisturbedAttempt) {
    // Repeat 2 disturbed once, then clean on its retry: three clean identical repeats follow,
    // yet the run measures all 5 (the disturbed attempt counts toward nothing).
    const auto script = temp_file("disturbed.yaml");
    write_file_atomically(script.string(),
                          "replay_script_version: 1\ninject:\n  - what: disturbance\n    runs: \"" + run_id +
                              "\"\n    repeat: 1\n    attempts: 1\n");
    const Replayed once = replay(answer, "disturbed-once", {"--stop-early", "--script", script.string()});
    ASSERT_EQ(once.outcome.exit_code, 0) << once.outcome.output;
    const RunRecord& run = once.doc.runs.at(0);
    EXPECT_EQ(run.status, Status::ok);
    EXPECT_EQ(run.repeats.size(), 6u) << "5 repeats and the disturbed attempt";
    ASSERT_TRUE(run.stopping.has_value());
    EXPECT_EQ(run.stopping->stopped_at, 5);
    EXPECT_EQ(run.stopping->why, "all repeats: another process was on the GPU, or NVML could not say");

    // Disturbed at every attempt: the run ends disturbed, having measured every repeat.
    write_file_atomically(
        script.string(),
        "replay_script_version: 1\ninject:\n  - what: disturbance\n    runs: \"" + run_id + "\"\n");
    const Replayed always = replay(answer, "disturbed-always",
                                   {"--stop-early", "--script", script.string(), "--keep-going-when-busy"});
    fs::remove(script);
    ASSERT_EQ(always.outcome.exit_code, 3) << always.outcome.output;
    const RunRecord& gone = always.doc.runs.at(0);
    EXPECT_EQ(gone.status, Status::disturbed);
    ASSERT_TRUE(gone.stopping.has_value());
    EXPECT_EQ(gone.stopping->stopped_at, 5) << gone.stopping->why;
}

// A small source: `stopped` as measured with --only `run_id`, its `stopping` record replaced.
fs::path stopped_source(const std::string& name, const nlohmann::json& stopping) {
    nlohmann::json doc = nlohmann::json::parse(read_file(stopped));
    doc["command"].push_back("--only");
    doc["command"].push_back(run_id);
    nlohmann::json kept = nlohmann::json::array();
    for (auto& run : doc["runs"]) {
        if (run["id"] == run_id) kept.push_back(run);
    }
    EXPECT_EQ(kept.size(), 1u);
    EXPECT_EQ(kept.at(0)["repeats"].size(), 3u) << "the source's run measured 3 of its 5 repeats";
    kept.at(0)["stopping"] = stopping;
    doc["runs"] = kept;
    const auto source = temp_file(name + "-source.json");
    write_file_atomically(source.string(), doc.dump());
    return source;
}

TEST_F(StoppingRuleReplay, ReplayOfARunThatStoppedEarlyEndsWhereTheSourceDid) {
    ASSERT_TRUE(fs::exists(stopped)) << "committed real results missing: " << stopped;
    const std::string why = "agreed: 3 repeats identical to the byte on all 15 bytes and count metrics";
    const auto source = stopped_source("stopped", {{"planned", 5}, {"stopped_at", 3}, {"why", why}});
    const Replayed r = replay(source.string(), "replays-stopped", {});  // the rule off: a replay's default
    fs::remove(source);
    ASSERT_EQ(r.outcome.exit_code, 0) << r.outcome.output;
    ASSERT_EQ(r.doc.runs.size(), 1u);
    const RunRecord& run = r.doc.runs[0];
    EXPECT_EQ(run.status, Status::ok) << run.reason;
    ASSERT_EQ(run.repeats.size(), 3u) << "no repeat past the source's, none invented";
    for (const auto& rep : run.repeats) EXPECT_EQ(rep.status, Status::ok) << rep.error;
    ASSERT_TRUE(run.stopping.has_value());
    EXPECT_EQ(run.stopping->planned, 5);
    EXPECT_EQ(run.stopping->stopped_at, 3);
    EXPECT_EQ(run.stopping->why, "the source stopped here: " + why);
    EXPECT_EQ(run.metrics.at("cost.after_first_use.cuda.free").stats.n, 3u);
    EXPECT_NE(r.outcome.output.find("pinbench: repeats: planned 5, measured 3; 0 saved by the stopping rule"),
              std::string::npos)
        << r.outcome.output;
}

TEST_F(StoppingRuleReplay, ReplayOfARunMissingARepeatWithoutStoppingStillFails) {
    // The same 3 repeats, but the source does not say it stopped (a truncated or hostile file):
    // the repeats it lacks fail, as before.
    ASSERT_TRUE(fs::exists(stopped)) << "committed real results missing: " << stopped;
    for (const nlohmann::json& stopping :
         {nlohmann::json(nullptr),
          nlohmann::json{{"planned", 5}, {"stopped_at", 5}, {"why", "all repeats"}}}) {
        const auto source = stopped_source("truncated", stopping);
        const Replayed r = replay(source.string(), "replays-truncated", {});
        fs::remove(source);
        ASSERT_EQ(r.outcome.exit_code, 3) << r.outcome.output;
        const RunRecord& run = r.doc.runs.at(0);
        EXPECT_EQ(run.status, Status::failed) << stopping.dump();
        ASSERT_EQ(run.repeats.size(), 5u);
        EXPECT_EQ(run.repeats[3].status, Status::failed);
        EXPECT_EQ(run.repeats[3].error, "replay source has no repeat 3 for run " + run_id);
        ASSERT_TRUE(run.stopping.has_value());
        EXPECT_EQ(run.stopping->stopped_at, 5);
    }
}

}  // namespace
}  // namespace pinbench
