// The replay backend end to end, on the committed real H200 results: the repeat protocol,
// injected crash/hang/CUDA error, transforms visible in the recomputed metrics, labelling,
// and an interrupted run that leaves a complete (if unfinished) results file or none.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/results/results.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

const std::string source = std::string(PINBENCH_SOURCE_DIR) + "/results/h200-quick/results.json";

fs::path temp_file(const std::string& name) {
    return fs::temp_directory_path() /
           ("pinbench-replay-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + name);
}

const RunRecord& run_named(const ResultsDocument& doc, const std::string& id) {
    for (const auto& r : doc.runs) {
        if (r.run.id == id) return r;
    }
    throw std::runtime_error("no run " + id);
}

class Replay : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_TRUE(fs::exists(source)) << "committed real results missing: " << source; }
};

TEST_F(Replay, TransformsInjectionsAndLabelsEndToEnd) {
    const auto script = temp_file("script.yaml");
    const auto out = temp_file("out.json");
    write_file_atomically(script.string(), R"(replay_script_version: 1
relabel:
  driver_release: "999.01"
transforms:
  - op: offset
    runs: "quick-overhead/cudaMallocHost/64MiB/*"
    probe: cuda.free
    bytes: 8MiB
inject:
  - what: crash
    runs: "quick-overhead/pageable/64MiB/*"
    repeat: 1
  - what: hang
    runs: "quick-overhead/pageable/256MiB/*"
    repeat: 0
  - what: cuda_error
    runs: "quick-overhead/pageable/1GiB/*"
    repeat: 2
)");
    Subprocess p({PINBENCH_EXE, "run", "--backend", "replay", "--from", source, "--script", script.string(),
                  "--only", "quick-overhead/pageable/*", "--only", "quick-overhead/cudaMallocHost/64MiB/*",
                  "--repeat-timeout", "3", "-o", out.string()},
                 {});
    const auto outcome = p.wait(std::chrono::minutes(5));
    ASSERT_EQ(outcome.kind, ProcessOutcome::Kind::exited) << outcome.output;
    EXPECT_EQ(outcome.exit_code, 3) << "failed runs are an infrastructure failure\n" << outcome.output;
    EXPECT_NE(outcome.output.find("REPLAYED DATA"), std::string::npos) << outcome.output;

    const ResultsDocument doc = load_results(out.string());  // the reader validates the schema
    const ResultsDocument src = load_results(source);
    EXPECT_EQ(doc.backend, "replay");
    EXPECT_EQ(doc.replay.at("source"), source);
    EXPECT_EQ(doc.replay.at("script"), script.string());
    EXPECT_EQ(doc.environment.at("driver").at("release"), "999.01");
    EXPECT_TRUE(doc.complete);
    EXPECT_EQ(doc.runs.size(), 5u);  // 4 pageable sizes + cudaMallocHost 64 MiB

    const auto& crashed = run_named(doc, "quick-overhead/pageable/64MiB/x1/g1");
    EXPECT_EQ(crashed.status, Status::failed);
    ASSERT_EQ(crashed.repeats.size(), 7u);
    EXPECT_EQ(crashed.repeats[1].status, Status::failed);
    EXPECT_NE(crashed.repeats[1].error.find("crashed"), std::string::npos) << crashed.repeats[1].error;
    EXPECT_EQ(crashed.repeats[0].status, Status::ok);
    EXPECT_EQ(crashed.metrics.at("time.alloc_ms").stats.n, 6u) << "the other repeats are kept";

    const auto& hung = run_named(doc, "quick-overhead/pageable/256MiB/x1/g1");
    EXPECT_EQ(hung.status, Status::timeout);
    EXPECT_EQ(hung.repeats[0].status, Status::timeout);
    EXPECT_LT(hung.repeats[0].wall_ms, 30000) << "the hang was killed at its timeout";
    EXPECT_EQ(hung.repeats[1].status, Status::ok);

    const auto& cuda_error = run_named(doc, "quick-overhead/pageable/1GiB/x1/g1");
    EXPECT_EQ(cuda_error.repeats[2].status, Status::failed);
    EXPECT_NE(cuda_error.repeats[2].error.find("cudaErrorIllegalAddress"), std::string::npos);

    EXPECT_EQ(run_named(doc, "quick-overhead/pageable/4GiB/x1/g1").status, Status::ok);

    const std::string metric = "cost.after_first_use.cuda.free";
    const auto& shifted = run_named(doc, "quick-overhead/cudaMallocHost/64MiB/x1/g1").metrics.at(metric);
    const auto& original = run_named(src, "quick-overhead/cudaMallocHost/64MiB/x1/g1").metrics.at(metric);
    EXPECT_DOUBLE_EQ(shifted.stats.median, original.stats.median + 8.0 * 1024 * 1024);
    EXPECT_EQ(shifted.stats.n, original.stats.n);
    fs::remove(script);
    fs::remove(out);
}

TEST_F(Replay, ReplayWithoutScriptReproducesTheSourceMetrics) {
    const auto out = temp_file("aa.json");
    Subprocess p({PINBENCH_EXE, "run", "--backend", "replay", "--from", source, "--only",
                  "quick-overhead/cudaHostRegister/*", "-o", out.string()},
                 {});
    const auto outcome = p.wait(std::chrono::minutes(5));
    ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    const ResultsDocument doc = load_results(out.string());
    const ResultsDocument src = load_results(source);
    ASSERT_EQ(doc.runs.size(), 4u);
    for (const auto& run : doc.runs) {
        const auto& orig = run_named(src, run.run.id);
        ASSERT_EQ(run.metrics.size(), orig.metrics.size()) << run.run.id;
        for (const auto& [name, m] : run.metrics) {
            EXPECT_DOUBLE_EQ(m.stats.median, orig.metrics.at(name).stats.median) << run.run.id << " " << name;
        }
    }
    fs::remove(out);
}

TEST_F(Replay, InterruptedRunLeavesACompleteFileOrNone) {
    const auto out = temp_file("interrupted.json");
    fs::remove(out);
    {
        Subprocess p({PINBENCH_EXE, "run", "--backend", "replay", "--from", source, "-o", out.string()}, {});
        for (int i = 0; i < 600 && !fs::exists(out); ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        ASSERT_TRUE(fs::exists(out)) << "no results were written before the kill";
    }                                                        // ~Subprocess kills the invocation mid-run
    const ResultsDocument doc = load_results(out.string());  // parses: never a partial file
    EXPECT_FALSE(doc.complete);
    EXPECT_GE(doc.runs.size(), 1u);
    fs::remove(out);
}

}  // namespace
}  // namespace pinbench
