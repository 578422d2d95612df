// Per-run metrics from hand-built repeats with known readings; every expected value is
// computed by hand in the comments.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "pinbench/results/run_metrics.hpp"

namespace pinbench {
namespace {

constexpr std::int64_t MiB = 1LL << 20;
constexpr std::int64_t GiB = 1LL << 30;

Snapshot snap(const std::string& label, std::int64_t free, std::int64_t used, Reading dxgi) {
    Snapshot s;
    s.label = label;
    s.readings["cuda.free"] = Reading::of(free);
    s.readings["cuda.total"] = Reading::of(24 * GiB);
    s.readings["nvml.0.used"] = Reading::of(used);
    s.readings["dxgi.local.usage"] = std::move(dxgi);
    s.readings["pdh.process.dedicated"] = Reading::not_available("PDH counter absent");
    return s;
}

// Repeat i of three: cuda.free drops by alloc[i] / first_use[i] / after_free[i] MiB from 20 GiB,
// nvml.0.used rises by used[i] MiB from 1000 MiB at first use. dxgi.local.usage is unavailable
// at first use in repeat 1 only.
RepeatRecord ok_repeat(int i) {
    const std::int64_t alloc[] = {2, 4, 6};
    const std::int64_t first_use[] = {10, 14, 12};
    const std::int64_t freed[] = {0, 2, 0};
    const std::int64_t used[] = {20, 24, 30};
    const double alloc_ms[] = {1.0, 3.0, 2.0};
    const std::int64_t base_free = 20 * GiB, base_used = 1000 * MiB;
    RepeatRecord r;
    r.index = i;
    r.status = Status::ok;
    r.snapshots.push_back(snap("after_context", base_free, base_used, Reading::of(500 * MiB)));
    r.snapshots.push_back(snap("after_alloc", base_free - alloc[i] * MiB, base_used + alloc[i] * MiB,
                               Reading::of(500 * MiB + MiB)));
    r.snapshots.push_back(
        snap("after_first_use", base_free - first_use[i] * MiB, base_used + used[i] * MiB,
             i == 1 ? Reading::not_available("query failed") : Reading::of(500 * MiB + 3 * MiB)));
    r.snapshots.push_back(snap("after_free", base_free - freed[i] * MiB, base_used, Reading::of(500 * MiB)));
    r.timings_ms = {{"context", 100.0 + i}, {"alloc", alloc_ms[i]}, {"first_use", 5.0}, {"free", 0.5}};
    return r;
}

RunRecord three_repeats() {
    RunRecord run;
    run.run.id = "quick-overhead/cudaMallocHost/64MiB/x1/g1";
    for (int i = 0; i < 3; ++i) run.repeats.push_back(ok_repeat(i));
    return run;
}

TEST(RunMetrics, ExactMediansOverOkRepeats) {
    const auto m = compute_run_metrics(three_repeats(), {{"cuda.free", 2 * MiB}});

    // first use: costs 10, 14, 12 MiB -> median 12, min 10, max 14; deviations 2, 2, 0 -> mad 2.
    const MetricSummary& fu = m.at("cost.after_first_use.cuda.free");
    EXPECT_EQ(fu.unit, "bytes");
    EXPECT_EQ(fu.stats.n, 3u);
    EXPECT_EQ(fu.stats.median, 12.0 * MiB);
    EXPECT_EQ(fu.stats.min, 10.0 * MiB);
    EXPECT_EQ(fu.stats.max, 14.0 * MiB);
    EXPECT_EQ(fu.stats.mad, 2.0 * MiB);
    EXPECT_EQ(fu.granule, 2 * MiB);

    // alloc: 2, 4, 6 MiB -> median 4.
    EXPECT_EQ(m.at("cost.after_alloc.cuda.free").stats.median, 4.0 * MiB);
    // after free: 0, 2, 0 MiB -> median 0, max 2: a measured 0 is a metric, not a gap.
    const MetricSummary& residual = m.at("residual.after_free.cuda.free");
    EXPECT_EQ(residual.stats.median, 0.0);
    EXPECT_EQ(residual.stats.max, 2.0 * MiB);

    // usage key: 20, 24, 30 MiB -> median 24; no granule known for it.
    const MetricSummary& used = m.at("cost.after_first_use.nvml.0.used");
    EXPECT_EQ(used.stats.median, 24.0 * MiB);
    EXPECT_FALSE(used.granule.has_value());

    // timings: alloc 1, 3, 2 ms -> median 2.
    const MetricSummary& alloc = m.at("time.alloc_ms");
    EXPECT_EQ(alloc.unit, "ms");
    EXPECT_EQ(alloc.stats.median, 2.0);
    EXPECT_EQ(alloc.stats.n, 3u);
    EXPECT_FALSE(alloc.granule.has_value());
    EXPECT_EQ(m.at("time.context_ms").stats.median, 101.0);

    // The samples beside each summary: one per ok repeat, in repeat order (not sorted).
    EXPECT_EQ(fu.samples, (std::vector<double>{10.0 * MiB, 14.0 * MiB, 12.0 * MiB}));
    EXPECT_EQ(alloc.samples, (std::vector<double>{1.0, 3.0, 2.0}));
}

TEST(RunMetrics, AvailableKeyCostIsPositiveWhenFreeDrops) {
    const auto m = compute_run_metrics(three_repeats(), {});
    EXPECT_GT(m.at("cost.after_first_use.cuda.free").stats.min, 0.0);
}

TEST(RunMetrics, ExactlyTheExpectedNames) {
    const auto m = compute_run_metrics(three_repeats(), {});
    std::set<std::string> names;
    for (const auto& [name, metric] : m) names.insert(name);
    // No cuda.total (fixed), no pdh.* (never available), no first-use dxgi (unavailable once).
    const std::set<std::string> expected = {
        "cost.after_alloc.cuda.free",
        "cost.after_first_use.cuda.free",
        "residual.after_free.cuda.free",
        "cost.after_alloc.nvml.0.used",
        "cost.after_first_use.nvml.0.used",
        "residual.after_free.nvml.0.used",
        "cost.after_alloc.dxgi.local.usage",
        "residual.after_free.dxgi.local.usage",
        "time.context_ms",
        "time.alloc_ms",
        "time.first_use_ms",
        "time.free_ms",
    };
    EXPECT_EQ(names, expected);
    EXPECT_EQ(m.at("cost.after_alloc.dxgi.local.usage").stats.median, 1.0 * MiB);
}

TEST(RunMetrics, FailedRepeatsAreLeftOut) {
    RunRecord run = three_repeats();
    RepeatRecord broken = ok_repeat(0);
    broken.index = 3;
    broken.status = Status::failed;
    broken.snapshots[2].readings["cuda.free"] = Reading::of(0);  // would be a 20 GiB cost
    broken.snapshots[2].readings["dxgi.local.usage"] = Reading::not_available("crashed");
    run.repeats.push_back(broken);
    const auto m = compute_run_metrics(run, {});
    EXPECT_EQ(m.at("cost.after_first_use.cuda.free").stats.n, 3u);
    EXPECT_EQ(m.at("cost.after_first_use.cuda.free").stats.max, 14.0 * MiB);
}

TEST(RunMetrics, MissingSnapshotOrTimingInOneRepeatDropsTheMetric) {
    RunRecord run = three_repeats();
    run.repeats[2].snapshots.erase(run.repeats[2].snapshots.begin() + 1);  // no after_alloc
    run.repeats[0].timings_ms.erase("free");
    const auto m = compute_run_metrics(run, {});
    EXPECT_EQ(m.count("cost.after_alloc.cuda.free"), 0u);
    EXPECT_EQ(m.count("time.free_ms"), 0u);
    EXPECT_EQ(m.count("cost.after_first_use.cuda.free"), 1u);
}

TEST(RunMetrics, NoOkRepeatsNoMetrics) {
    RunRecord run = three_repeats();
    for (auto& r : run.repeats) r.status = Status::timeout;
    EXPECT_TRUE(compute_run_metrics(run, {}).empty());
    EXPECT_TRUE(compute_run_metrics(RunRecord{}, {}).empty());
}

RunRecord with_statuses(std::initializer_list<Status> statuses) {
    RunRecord run;
    for (Status s : statuses) {
        RepeatRecord r;
        r.status = s;
        r.index = static_cast<int>(run.repeats.size());
        run.repeats.push_back(r);
    }
    return run;
}

TEST(RunStatus, EachIndexCountsByItsLastAttempt) {
    RunRecord run = with_statuses({Status::ok, Status::ok});
    RepeatRecord disturbed;
    disturbed.index = 1;
    disturbed.attempt = 0;
    disturbed.status = Status::disturbed;
    run.repeats[1].attempt = 1;  // the retry of index 1 was clean
    run.repeats.insert(run.repeats.begin() + 1, disturbed);
    EXPECT_EQ(run_status(run), Status::ok);
    run.repeats.back().status = Status::disturbed;  // the retry was disturbed too
    EXPECT_EQ(run_status(run), Status::disturbed);
    run.repeats.front().status = Status::timeout;  // timeout outranks disturbed
    EXPECT_EQ(run_status(run), Status::timeout);
    EXPECT_EQ(run_status(with_statuses({Status::waived, Status::disturbed})), Status::disturbed);
}

TEST(RunStatus, WorstRepeatWins) {
    EXPECT_EQ(run_status(with_statuses({Status::ok, Status::ok})), Status::ok);
    EXPECT_EQ(run_status(with_statuses({Status::ok, Status::waived})), Status::waived);
    EXPECT_EQ(run_status(with_statuses({Status::waived, Status::timeout, Status::ok})), Status::timeout);
    EXPECT_EQ(run_status(with_statuses({Status::timeout, Status::ok, Status::failed})), Status::failed);
}

TEST(RunStatus, NoRepeatsKeepsTheStatusSet) {
    RunRecord waived;
    waived.status = Status::waived;
    waived.reason = "needs 2 GPUs, 1 present";
    EXPECT_EQ(run_status(waived), Status::waived);
    EXPECT_EQ(run_status(RunRecord{}), Status::ok);
}

}  // namespace
}  // namespace pinbench
