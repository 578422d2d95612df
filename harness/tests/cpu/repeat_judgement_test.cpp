// A run's repeats judged against neighbours (run/repeat_judgement.hpp) on hand-made repeats:
// which probes judge, the repeat that disagrees with the rest, the clean repeats too few to show
// agreement, the run's disturbance record, and the stopping rule's agreement.
#include <gtest/gtest.h>

#include "run/repeat_judgement.hpp"

namespace pinbench {
namespace {

constexpr std::int64_t MiB = std::int64_t{1} << 20;

// An ok repeat whose cuda.free fell by `cost` from its first snapshot to its second.
RepeatRecord repeat_costing(int index, std::int64_t cost) {
    RepeatRecord r;
    r.index = index;
    Snapshot before, after;
    before.label = "after_context";
    before.readings["cuda.free"] = Reading::of(1000 * MiB);
    before.readings["cuda.total"] = Reading::of(2000 * MiB);
    after.label = "after_alloc";
    after.readings["cuda.free"] = Reading::of(1000 * MiB - cost);
    after.readings["cuda.total"] = Reading::of(2000 * MiB);
    r.snapshots = {before, after};
    return r;
}

WatchPlan plan_of_device_zero() {
    WatchPlan plan;
    plan.devices = {0};
    plan.cuda0 = 0;
    plan.judged_devices = {0};
    plan.tolerance = MiB;
    return plan;
}

TEST(RepeatJudgement, APerProcessProbeJudgesOnlyWhereTheHostControlSawItMove) {
    const auto controls = [](const char* key, std::int64_t cost) {
        return nlohmann::json{{"positive_host", {{"dedicated_cost", {{key, cost}}}}}};
    };
    EXPECT_TRUE(per_process_probe_judges(controls("dxgi.local.usage", 256 * MiB)));
    EXPECT_FALSE(per_process_probe_judges(controls("dxgi.local.usage", 0)));
    EXPECT_FALSE(per_process_probe_judges(controls("nvml.0.used", 256 * MiB))) << "device level";
    EXPECT_FALSE(per_process_probe_judges(nlohmann::json::object()));
}

TEST(RepeatJudgement, ADisturbanceCountsOnTheRunsOwnDevicesOnly) {
    const WatchPlan plan = plan_of_device_zero();
    Disturbance elsewhere, here;
    elsewhere.evidence.push_back({"process_appeared", 1, 4242, MiB, 0, "on GPU 1"});
    elsewhere.devices = {1};
    here.evidence.push_back({"process_appeared", 0, 4242, MiB, 0, "on GPU 0"});
    here.devices = {0};
    EXPECT_FALSE(disturbs_judgement(Disturbance{}, plan, false));
    EXPECT_FALSE(disturbs_judgement(elsewhere, plan, false));
    EXPECT_TRUE(disturbs_judgement(here, plan, false));
    EXPECT_FALSE(disturbs_judgement(here, plan, true)) << "a per-process probe judges instead";
}

TEST(RepeatJudgement, TheRepeatOffTheMedianIsMarkedAnOutlier) {
    std::vector<RepeatRecord> repeats = {repeat_costing(0, 64 * MiB), repeat_costing(1, 64 * MiB),
                                         repeat_costing(2, 320 * MiB), repeat_costing(3, 64 * MiB)};
    EXPECT_EQ(mark_outliers(repeats, plan_of_device_zero()), std::vector<int>{2});
    EXPECT_EQ(repeats[2].status, Status::disturbed);
    EXPECT_EQ(repeats[2].disturbance.at("evidence").back().at("what"), "outlier");
    EXPECT_EQ(repeats[2].error, repeats[2].disturbance.at("evidence").back().at("text"));
    for (int i : {0, 1, 3}) EXPECT_EQ(repeats[i].status, Status::ok) << i;
    EXPECT_TRUE(mark_outliers(repeats, plan_of_device_zero()).empty()) << "the rest agree";
}

TEST(RepeatJudgement, FewerThanThreeCleanRepeatsAreUnverifiedOnTheirDeviceLevelProbes) {
    std::vector<RepeatRecord> two = {repeat_costing(0, 64 * MiB), repeat_costing(1, 64 * MiB)};
    mark_unverified(two);
    for (const RepeatRecord& r : two) {
        EXPECT_EQ(r.status, Status::ok) << "kept, never judged";
        EXPECT_EQ(r.disturbance.at("probes"), nlohmann::json::array({"cuda.free"})) << "cuda.total is fixed";
        EXPECT_EQ(r.disturbance.at("evidence").back().at("what"), "unverified");
    }
    std::vector<RepeatRecord> three = {repeat_costing(0, 64 * MiB), repeat_costing(1, 64 * MiB),
                                       repeat_costing(2, 64 * MiB)};
    mark_unverified(three);
    for (const RepeatRecord& r : three) EXPECT_TRUE(r.disturbance.is_null());
}

TEST(RepeatJudgement, TheRunsRecordJoinsItsDisturbedRepeatsAndKeepsTwentyEvidences) {
    std::vector<RepeatRecord> repeats(25);
    for (int i = 0; i < 25; ++i) {
        repeats[i].index = i;
        repeats[i].status = Status::disturbed;
        repeats[i].disturbance = {{"probes", {i % 2 == 0 ? "cuda.free" : "nvml.0.used"}},
                                  {"evidence", {{{"what", "idle_move"}, {"text", std::to_string(i)}}}}};
    }
    repeats.push_back(repeat_costing(25, 64 * MiB));  // ok: not part of the record
    const nlohmann::json d = run_disturbance(repeats, 26, 25);
    EXPECT_EQ(d.at("attempts"), 26);
    EXPECT_EQ(d.at("disturbed_attempts"), 25);
    EXPECT_EQ(d.at("probes"), nlohmann::json::array({"cuda.free", "nvml.0.used"}));
    ASSERT_EQ(d.at("evidence").size(), 20u);
    EXPECT_EQ(d.at("evidence").front().at("text"), "0");
    EXPECT_EQ(d.at("evidence").back().at("text"), "19");
}

// An overhead run of these repeats (the stopping rule reads the run's metrics).
RunRecord run_of(std::vector<RepeatRecord> repeats) {
    RunRecord run;
    run.run.id = "s/cudaMallocHost/64MiB/x1/g1";
    run.run.kind = "overhead";
    run.run.repeats = 5;
    run.repeats = std::move(repeats);
    return run;
}

TEST(StoppingRule, ThreeRepeatsIdenticalToTheByteAgree) {
    const Agreement a = repeats_agree(
        run_of({repeat_costing(0, 64 * MiB), repeat_costing(1, 64 * MiB), repeat_costing(2, 64 * MiB)}), 3);
    EXPECT_TRUE(a.agreed);
    EXPECT_EQ(a.why, "3 repeats identical to the byte on all 1 bytes and count metrics");
}

TEST(StoppingRule, TwoRepeatsAreTooFew) {
    const Agreement a = repeats_agree(run_of({repeat_costing(0, 64 * MiB), repeat_costing(1, 64 * MiB)}), 3);
    EXPECT_FALSE(a.agreed);
    EXPECT_EQ(a.why, "2 repeat(s), 3 needed to agree");
}

TEST(StoppingRule, OneStepApartIsDisagreement) {
    // One 2 MiB step of the driver in one repeat: the run keeps repeating.
    const Agreement a = repeats_agree(
        run_of({repeat_costing(0, 64 * MiB), repeat_costing(1, 66 * MiB), repeat_costing(2, 64 * MiB)}), 3);
    EXPECT_FALSE(a.agreed);
    EXPECT_EQ(a.why, "cost.after_alloc.cuda.free differs between repeats (67108864 and 69206016)");
    // Even a byte.
    EXPECT_FALSE(repeats_agree(run_of({repeat_costing(0, 64 * MiB), repeat_costing(1, 64 * MiB + 1),
                                       repeat_costing(2, 64 * MiB)}),
                               3)
                     .agreed);
}

TEST(StoppingRule, ADisturbedAttemptNeverCountsTowardAgreement) {
    // Three clean identical repeats beside a disturbed attempt (retried under index 1): the run
    // measures its full count.
    RepeatRecord disturbed = repeat_costing(1, 64 * MiB);
    disturbed.status = Status::disturbed;
    RepeatRecord retried = repeat_costing(1, 64 * MiB);
    retried.attempt = 1;
    const Agreement a = repeats_agree(
        run_of({repeat_costing(0, 64 * MiB), disturbed, retried, repeat_costing(2, 64 * MiB)}), 3);
    EXPECT_FALSE(a.agreed);
    EXPECT_EQ(a.why, "repeat 2 attempt 1 was disturbed: every repeat is measured");
    // Nor a failed one.
    RepeatRecord failed = repeat_costing(3, 64 * MiB);
    failed.status = Status::failed;
    EXPECT_FALSE(repeats_agree(run_of({repeat_costing(0, 64 * MiB), repeat_costing(1, 64 * MiB),
                                       repeat_costing(2, 64 * MiB), failed}),
                               3)
                     .agreed);
}

TEST(StoppingRule, NothingInBytesNothingToAgreeOn) {
    RepeatRecord r = repeat_costing(0, 64 * MiB);
    r.snapshots.clear();
    r.timings_ms["alloc"] = 1.0;
    const Agreement a = repeats_agree(run_of({r, r, r}), 3);
    EXPECT_FALSE(a.agreed) << "times are never asked to agree, and never let a run stop";
    EXPECT_EQ(a.why, "no bytes or count metric to agree on");
}

}  // namespace
}  // namespace pinbench
