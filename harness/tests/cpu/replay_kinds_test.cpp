// Every scenario kind end to end through the replay backend, from committed real H200 results
// (Linux control): the parent recomputes each kind's metrics from the replayed snapshots and
// data, so the assertions below check the kind metrics, not a copy of them.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <filesystem>
#include <functional>
#include <set>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/results/statistics.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

const std::string source = std::string(PINBENCH_SOURCE_DIR) + "/results/h200-kinds-nightly/results.json";

fs::path temp_file(const std::string& name) {
    return fs::temp_directory_path() /
           ("pinbench-replay-kinds-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + name);
}

ResultsDocument replay(const std::vector<std::string>& extra, const std::string& name,
                       int expected_exit = 0) {
    const auto out = temp_file(name);
    std::vector<std::string> argv{PINBENCH_EXE, "run",  "--backend", "replay",
                                  "--from",     source, "-o",        out.string()};
    argv.insert(argv.end(), extra.begin(), extra.end());
    Subprocess p(argv, {});
    const auto outcome = p.wait(std::chrono::minutes(5));
    EXPECT_EQ(outcome.kind, ProcessOutcome::Kind::exited) << outcome.output;
    EXPECT_EQ(outcome.exit_code, expected_exit) << outcome.output;
    ResultsDocument doc = load_results(out.string());
    fs::remove(out);
    return doc;
}

const RunRecord* find_run(const ResultsDocument& doc, const std::string& id) {
    for (const auto& r : doc.runs) {
        if (r.run.id == id) return &r;
    }
    return nullptr;
}

// The first ok run of a kind matching a predicate on its parameters.
const RunRecord* first_of(const ResultsDocument& doc, const std::string& kind,
                          const std::function<bool(const RunRecord&)>& pick = {}) {
    for (const auto& r : doc.runs) {
        if (r.run.kind == kind && r.status == Status::ok && (!pick || pick(r))) return &r;
    }
    return nullptr;
}

double median_of(const RunRecord& run, const std::string& metric) {
    const auto it = run.metrics.find(metric);
    if (it == run.metrics.end()) throw std::runtime_error(run.run.id + " has no metric " + metric);
    return it->second.stats.median;
}

// One replay of the whole file serves the tests that only read it (it takes a while: every
// repeat is a child process, as in a real run). CTest runs this suite as one test, in one
// process (harness/tests/CMakeLists.txt), so the file is replayed once, not once per test.
class ReplayKindsWhole : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        if (fs::exists(source)) replayed_ = new ResultsDocument(replay({}, "all.json"));
    }
    static void TearDownTestSuite() {
        delete replayed_;
        replayed_ = nullptr;
    }
    void SetUp() override {
        ASSERT_TRUE(fs::exists(source)) << "committed real results missing: " << source;
        ASSERT_NE(replayed_, nullptr);
    }
    static const ResultsDocument& replayed() { return *replayed_; }

private:
    static inline ResultsDocument* replayed_ = nullptr;
};

TEST_F(ReplayKindsWhole, EveryKindReplaysToTheSameStatusAndMetrics) {
    const ResultsDocument src = load_results(source);
    const ResultsDocument& doc = replayed();
    EXPECT_EQ(doc.backend, "replay");
    ASSERT_EQ(doc.runs.size(), src.runs.size());
    std::set<std::string> kinds;
    for (const auto& run : doc.runs) {
        const RunRecord* orig = find_run(src, run.run.id);
        ASSERT_NE(orig, nullptr) << run.run.id;
        EXPECT_EQ(run.status, orig->status) << run.run.id << ": " << run.reason;
        EXPECT_EQ(run.run.params, orig->run.params) << run.run.id;
        ASSERT_EQ(run.metrics.size(), orig->metrics.size()) << run.run.id;
        for (const auto& [name, m] : run.metrics) {
            EXPECT_DOUBLE_EQ(m.stats.median, orig->metrics.at(name).stats.median)
                << run.run.id << " " << name;
            EXPECT_EQ(m.unit, orig->metrics.at(name).unit) << run.run.id << " " << name;
        }
        if (run.status == Status::ok) kinds.insert(run.run.kind);
    }
    // Every kind of docs/kinds.md has at least one measured run in the nightly results.
    for (const char* kind : {"overhead", "capacity", "sweep", "multi_gpu", "workers", "churn",
                             "fragmentation", "shared", "register_window"}) {
        EXPECT_EQ(kinds.count(kind), 1u) << kind;
    }
}

TEST_F(ReplayKindsWhole, SummaryNumbersFollowFromTheRawData) {
    const ResultsDocument& doc = replayed();

    // capacity: loss = largest block without pinning minus with, per repeat; pageable loses nothing.
    for (const auto& run : doc.runs) {
        if (run.run.kind != "capacity" || run.status != Status::ok) continue;
        std::vector<double> losses;
        for (const auto& r : run.repeats) {
            losses.push_back(r.data.at("largest_without").get<double>() -
                             r.data.at("largest_with").get<double>());
        }
        EXPECT_DOUBLE_EQ(median_of(run, "capacity.loss"), median(losses)) << run.run.id;
        EXPECT_GE(median_of(run, "capacity.read_ratio"), 0.5)
            << run.run.id << ": the block is in device memory";
        if (run.run.api.family == ApiFamily::pageable)
            EXPECT_EQ(median_of(run, "capacity.loss"), 0) << run.run.id;
    }

    // workers, framework: the caching allocator pins prefetch_factor x N power-of-two batches.
    const RunRecord* framework = first_of(doc, "workers", [](const RunRecord& r) {
        return r.run.params.at("variant") == "framework" && r.run.params.at("workers").get<int>() > 0;
    });
    ASSERT_NE(framework, nullptr);
    const double batches = framework->run.params.at("workers").get<double>() *
                           framework->run.params.at("prefetch_factor").get<double>();
    EXPECT_DOUBLE_EQ(median_of(*framework, "workers.framework_pinned_bytes"),
                     batches * static_cast<double>(std::bit_ceil(framework->run.size)));

    // workers, per process: every worker's context costs device memory (hundreds of MiB). The
    // source is results version 2, where the context was read with the worker's workspace: that
    // sum has its own name, never the context alone's (which a compare would pool with it).
    const RunRecord* per_process = first_of(doc, "workers", [](const RunRecord& r) {
        return r.run.params.at("variant") == "per_process" && r.run.params.at("workers").get<int>() > 0;
    });
    ASSERT_NE(per_process, nullptr);
    EXPECT_GT(median_of(*per_process, "workers.context_and_workspace_per_worker.cuda.free"),
              64.0 * 1024 * 1024);
    EXPECT_FALSE(per_process->metrics.contains("workers.context_per_worker.cuda.free"));
    EXPECT_FALSE(per_process->metrics.contains("workers.workspace_per_worker.cuda.free"));

    // sweep size curve: the slope is per GiB, so slope x size matches the largest point's cost
    // within one probe granule plus the fitted base.
    const RunRecord* curve =
        first_of(doc, "sweep", [](const RunRecord& r) { return r.run.params.at("mode") == "size_curve"; });
    ASSERT_NE(curve, nullptr);
    const double slope = median_of(*curve, "sweep.slope_per_gib.cuda.free");
    const double base = median_of(*curve, "sweep.base.cuda.free");
    const double top = median_of(*curve, "sweep.cost." + std::to_string(curve->run.size) + ".cuda.free");
    EXPECT_NEAR(base + slope * static_cast<double>(curve->run.size) / (1024.0 * 1024 * 1024), top,
                4.0 * 1024 * 1024);

    // fragmentation: loss = before - after, per repeat.
    const RunRecord* frag = first_of(doc, "fragmentation");
    ASSERT_NE(frag, nullptr);
    EXPECT_DOUBLE_EQ(
        median_of(*frag, "fragmentation.largest_loss"),
        median_of(*frag, "fragmentation.largest_before") - median_of(*frag, "fragmentation.largest_after"));

    // register_window: the ratio is windowed over kept, per repeat.
    const RunRecord* window = first_of(doc, "register_window");
    ASSERT_NE(window, nullptr);
    std::vector<double> ratios;
    for (const auto& r : window->repeats) {
        ratios.push_back(r.timings_ms.at("windowed_per_transfer") / r.timings_ms.at("kept_per_transfer"));
    }
    EXPECT_DOUBLE_EQ(median_of(*window, "register_window.time_ratio"), median(ratios));
}

// The tests below replay only what they check.
class ReplayKinds : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_TRUE(fs::exists(source)) << "committed real results missing: " << source; }
};

TEST_F(ReplayKinds, AnOffsetMovesOnlyTheMetricsItShould) {
    // +64 MiB on cuda.free in every snapshot between the baseline and the free: per worker that
    // is 64 MiB / N in the context phase and nothing in the pinned phase; for churn the whole
    // trace moves, so the creep stays and the residual after the wait grows by 64 MiB.
    const ResultsDocument src = load_results(source);
    const auto script = temp_file("offset.yaml");
    write_file_atomically(script.string(), R"(replay_script_version: 1
transforms:
  - op: offset
    runs: "*"
    probe: cuda.free
    bytes: 64MiB
)");
    const ResultsDocument doc =
        replay({"--script", script.string(), "--only", "nightly-workers/*", "--only", "nightly-churn/*"},
               "offset.json");
    fs::remove(script);
    const double offset = 64.0 * 1024 * 1024;
    int checked = 0;
    for (const auto& run : doc.runs) {
        if (run.status != Status::ok) continue;
        const RunRecord& orig = *find_run(src, run.run.id);
        if (run.run.kind == "workers" && run.run.params.at("variant") == "per_process" &&
            run.run.params.at("workers").get<int>() > 0) {
            const double n = run.run.params.at("workers").get<double>();
            EXPECT_DOUBLE_EQ(
                median_of(run, "workers.context_and_workspace_per_worker.cuda.free"),
                median_of(orig, "workers.context_and_workspace_per_worker.cuda.free") + offset / n);
            EXPECT_DOUBLE_EQ(median_of(run, "workers.pinned_per_worker.cuda.free"),
                             median_of(orig, "workers.pinned_per_worker.cuda.free"));
            ++checked;
        }
        if (run.run.kind == "churn") {
            EXPECT_DOUBLE_EQ(median_of(run, "churn.creep.cuda.free"),
                             median_of(orig, "churn.creep.cuda.free"));
            EXPECT_DOUBLE_EQ(median_of(run, "churn.residual_after_wait.cuda.free"),
                             median_of(orig, "churn.residual_after_wait.cuda.free") + offset);
            ++checked;
        }
    }
    EXPECT_GE(checked, 2);
}

TEST_F(ReplayKinds, RunsWaivedWhereMeasuredReplayAsWaived) {
    const ResultsDocument src = load_results(source);
    std::string waived_id;
    for (const auto& r : src.runs) {
        if (r.status == Status::waived && r.repeats.empty()) waived_id = r.run.id;
    }
    if (waived_id.empty()) GTEST_SKIP() << "the source has no run waived at plan level";
    const ResultsDocument doc = replay({"--only", waived_id}, "waived.json");
    ASSERT_EQ(doc.runs.size(), 1u);
    EXPECT_EQ(doc.runs[0].status, Status::waived);
    EXPECT_EQ(doc.runs[0].reason, find_run(src, waived_id)->reason);
    EXPECT_TRUE(doc.runs[0].metrics.empty()) << "waived is never a 0";
}

// The command kind (a real traced DataLoader, results/h200-gpu-tests-dataloader): the parent re-derives its
// metrics from each repeat's trace summary, and a replay script can fail a repeat of it.
TEST_F(ReplayKinds, TheCommandKindReplaysItsTracedMetrics) {
    const std::string dataloader =
        std::string(PINBENCH_SOURCE_DIR) + "/results/h200-gpu-tests-dataloader/pytorch-dataloader.json";
    const auto out = temp_file("command.json");
    Subprocess p({PINBENCH_EXE, "run", "--backend", "replay", "--from", dataloader, "-o", out.string()}, {});
    const auto outcome = p.wait(std::chrono::minutes(2));
    ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
    const ResultsDocument doc = load_results(out.string());
    fs::remove(out);
    const ResultsDocument orig = load_results(dataloader);
    ASSERT_EQ(doc.runs.size(), 4u);
    for (const auto& run : doc.runs) {
        SCOPED_TRACE(run.run.id);
        ASSERT_EQ(run.status, Status::ok);
        const RunRecord* source_run = find_run(orig, run.run.id);
        ASSERT_NE(source_run, nullptr);
        for (const char* name :
             {"command.peak_pinned_bytes", "command.cost_at_peak.nvml.0.used", "command.pinning_calls"}) {
            EXPECT_DOUBLE_EQ(median_of(run, name), median_of(*source_run, name)) << name;
        }
        // PyTorch pinned every 300 MiB batch as a 512 MiB block: at least 9 held at once.
        EXPECT_GE(median_of(run, "command.peak_pinned_bytes"), 9.0 * 512 * 1024 * 1024);
        EXPECT_GT(median_of(run, "command.cost_at_peak.nvml.0.used"), 0.0);
    }
}

}  // namespace
}  // namespace pinbench
