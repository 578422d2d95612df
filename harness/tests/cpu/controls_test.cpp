// The controls' verdicts (run/controls.hpp) on hand-made snapshots: what the null control
// reports per key, when the positive device and host controls pass, fail or do not apply, which
// controls fail a run, and the granules read from the controls' and the runs' snapshots.
// Running the controls themselves needs a GPU (or the replay backend: replay_test.cpp, doctor).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "pinbench/probes/snapshot.hpp"
#include "pinbench/results/results.hpp"
#include "run/controls.hpp"

namespace pinbench {
namespace {

constexpr std::int64_t MiB = std::int64_t{1} << 20;
constexpr std::uint64_t S = std::uint64_t{256} << 20;  // the positive control's size
constexpr std::int64_t tolerance = 2 * MiB;

Snapshot snap(std::string label, Readings readings) {
    Snapshot s;
    s.label = std::move(label);
    s.readings = std::move(readings);
    return s;
}

Reading of(std::int64_t bytes) { return Reading::of(bytes); }

TEST(NullControl, ReportsEachKeysRangeAndNoiseAndTheUnavailableOnesWhy) {
    const std::vector<Snapshot> samples{
        snap("null",
             {{"cuda.free", of(1000 * MiB)}, {"nvml.0.process_used", Reading::not_available("WDDM")}}),
        snap("null", {{"cuda.free", of(998 * MiB)}, {"nvml.0.process_used", Reading::not_available("WDDM")}}),
        snap("null",
             {{"cuda.free", of(1002 * MiB)}, {"nvml.0.process_used", Reading::not_available("WDDM")}}),
    };
    const auto v = null_control_verdict(samples);
    EXPECT_EQ(v["verdict"], "PASS");
    EXPECT_EQ(v["samples"], 3);
    const auto& free = v["keys"]["cuda.free"];
    EXPECT_EQ(free["n"], 3);
    EXPECT_EQ(free["min"], 998 * MiB);
    EXPECT_EQ(free["max"], 1002 * MiB);
    EXPECT_EQ(free["noise"], 4 * MiB);
    EXPECT_EQ(v["keys"]["nvml.0.process_used"]["unavailable"], "WDDM");
}

TEST(NullControl, NoSamplesFail) {
    const auto v = null_control_verdict({});
    EXPECT_EQ(v["verdict"], "FAIL");
    EXPECT_EQ(v["samples"], 0);
}

// before / holding / after_free around an allocation of S: cuda.free falls by S, NVML's used
// memory rises by S and 1 MiB (inside the tolerance), the reservation and the totals move as
// they like, and the shared budget is not this control's business.
std::vector<Snapshot> device_snapshots(std::int64_t used_rise) {
    const auto s = static_cast<std::int64_t>(S);
    return {
        snap("before", {{"cuda.free", of(8000 * MiB)},
                        {"cuda.total", of(8192 * MiB)},
                        {"nvml.0.used", of(100 * MiB)},
                        {"nvml.0.reserved", of(50 * MiB)},
                        {"dxgi.nonlocal.usage", of(0)}}),
        snap("holding", {{"cuda.free", of(8000 * MiB - s)},
                         {"cuda.total", of(8192 * MiB)},
                         {"nvml.0.used", of(100 * MiB + used_rise)},
                         {"nvml.0.reserved", of(58 * MiB)},
                         {"dxgi.nonlocal.usage", of(7 * MiB)}}),
        snap("after_free", {{"cuda.free", of(8000 * MiB - 2 * MiB)},
                            {"cuda.total", of(8192 * MiB)},
                            {"nvml.0.used", of(100 * MiB)},
                            {"nvml.0.reserved", of(50 * MiB)},
                            {"dxgi.nonlocal.usage", of(0)}}),
    };
}

TEST(PositiveDeviceControl, PassesWhenEveryDedicatedProbeMovesBySWithinTheTolerance) {
    const auto v =
        positive_device_verdict(device_snapshots(static_cast<std::int64_t>(S) + MiB), S, tolerance);
    EXPECT_EQ(v["verdict"], "PASS") << v.dump();
    EXPECT_EQ(v["bytes"], S);
    EXPECT_EQ(v["tolerance"], tolerance);
    const auto& keys = v["keys"];
    EXPECT_EQ(keys["cuda.free"]["verdict"], "PASS");
    EXPECT_EQ(keys["cuda.free"]["delta"], S);
    EXPECT_EQ(keys["cuda.free"]["error"], 0);
    EXPECT_EQ(keys["cuda.free"]["left_after_free"], 2 * MiB);
    EXPECT_EQ(keys["nvml.0.used"]["verdict"], "PASS");
    EXPECT_EQ(keys["nvml.0.used"]["error"], MiB);
    EXPECT_EQ(keys["nvml.0.used"]["left_after_free"], 0);
    EXPECT_EQ(keys["nvml.0.reserved"]["verdict"], "NOT JUDGED");
    EXPECT_EQ(keys["nvml.0.reserved"]["delta"], 8 * MiB);
    EXPECT_FALSE(keys.contains("cuda.total"));           // a capacity, never a cost
    EXPECT_FALSE(keys.contains("dxgi.nonlocal.usage"));  // the shared budget
}

TEST(PositiveDeviceControl, FailsWhenAProbeMissesTheAllocationByMoreThanTheTolerance) {
    const auto v =
        positive_device_verdict(device_snapshots(static_cast<std::int64_t>(S) + 3 * MiB), S, tolerance);
    EXPECT_EQ(v["verdict"], "FAIL");
    EXPECT_EQ(v["error"], "1 dedicated-memory probe(s) did not move by the allocated size");
    EXPECT_EQ(v["keys"]["nvml.0.used"]["verdict"], "FAIL");
    EXPECT_EQ(v["keys"]["nvml.0.used"]["error"], 3 * MiB);
    EXPECT_EQ(v["keys"]["cuda.free"]["verdict"], "PASS");
}

TEST(PositiveDeviceControl, AProbeBlindToTheAllocationFails) {
    const auto v = positive_device_verdict(device_snapshots(0), S, tolerance);
    EXPECT_EQ(v["verdict"], "FAIL");
    EXPECT_EQ(v["keys"]["nvml.0.used"]["delta"], 0);
    EXPECT_EQ(v["keys"]["nvml.0.used"]["error"], -static_cast<std::int64_t>(S));
}

TEST(PositiveDeviceControl, FailsWhenNoDedicatedProbeCanBeRead) {
    const std::vector<Snapshot> snaps{
        snap("before", {{"cuda.free", Reading::not_available("no context")}}),
        snap("holding", {{"cuda.free", Reading::not_available("no context")}}),
        snap("after_free", {}),
    };
    const auto v = positive_device_verdict(snaps, S, tolerance);
    EXPECT_EQ(v["verdict"], "FAIL");
    EXPECT_EQ(v["error"], "no dedicated-memory probe could see the allocation");
    EXPECT_EQ(v["keys"]["cuda.free"]["verdict"], "NOT AVAILABLE");
    EXPECT_EQ(v["keys"]["cuda.free"]["why"], "no context");
}

TEST(PositiveDeviceControl, FailsWithoutTheAfterFreeSnapshot) {
    auto snaps = device_snapshots(static_cast<std::int64_t>(S));
    snaps.pop_back();
    const auto v = positive_device_verdict(snaps, S, tolerance);
    EXPECT_EQ(v["verdict"], "FAIL");
    EXPECT_EQ(v["error"], "positive control child returned incomplete snapshots");
}

// Pinning S bytes of host memory: DXGI's NON_LOCAL usage should move by about S (10%).
std::vector<Snapshot> host_snapshots(Readings before, Readings holding) {
    return {snap("before", std::move(before)), snap("holding", std::move(holding))};
}

TEST(PositiveHostControl, PassesWhenTheSharedProbeMovesByAboutS) {
    const auto s = static_cast<std::int64_t>(S);
    const auto v = positive_host_verdict(
        host_snapshots({{"dxgi.nonlocal.usage", of(10 * MiB)}, {"cuda.free", of(8000 * MiB)}},
                       {{"dxgi.nonlocal.usage", of(10 * MiB + s + s / 20)}, {"cuda.free", of(7998 * MiB)}}),
        S);
    EXPECT_EQ(v["verdict"], "PASS") << v.dump();
    EXPECT_EQ(v["tolerance"], s / 10);
    EXPECT_EQ(v["shared_keys"]["dxgi.nonlocal.usage"]["delta"], s + s / 20);
    EXPECT_EQ(v["dedicated_cost"]["cuda.free"], 2 * MiB);  // reported, not judged
}

TEST(PositiveHostControl, FailsWhenTheSharedProbeMovesByHalfOfS) {
    const auto s = static_cast<std::int64_t>(S);
    const auto v = positive_host_verdict(
        host_snapshots({{"dxgi.nonlocal.usage", of(0)}}, {{"dxgi.nonlocal.usage", of(s / 2)}}), S);
    EXPECT_EQ(v["verdict"], "FAIL");
    EXPECT_EQ(v["shared_keys"]["dxgi.nonlocal.usage"]["verdict"], "FAIL");
    EXPECT_EQ(v["error"], "a shared-memory probe did not move by about the pinned size");
}

TEST(PositiveHostControl, IsNotApplicableWithoutASharedProbeAndSaysWhich) {
    const auto none = positive_host_verdict(
        host_snapshots({{"cuda.free", of(8000 * MiB)}}, {{"cuda.free", of(8000 * MiB)}}), S);
    EXPECT_EQ(none["verdict"], "NOT APPLICABLE");
    EXPECT_EQ(none["why"], "no shared-memory probe could be read here");

    const auto unread = positive_host_verdict(
        host_snapshots({{"pdh.process.shared", Reading::not_available("no PDH counter")}},
                       {{"pdh.process.shared", Reading::not_available("no PDH counter")}}),
        S);
    EXPECT_EQ(unread["verdict"], "NOT APPLICABLE");
    EXPECT_EQ(unread["why"],
              "no shared-memory probe could be read here (pdh.process.shared: no PDH counter)");
}

TEST(ControlsPassed, AFailAndADisturbedControlFailWithTheirErrorsNamed) {
    const nlohmann::json controls = {
        {"null", {{"verdict", "PASS"}}},
        {"positive_device", {{"verdict", "FAIL"}, {"error", "blind probe"}}},
        {"positive_host", {{"verdict", "NOT APPLICABLE"}}},
        {"cross_check", {{"verdict", "DISTURBED"}, {"error", "a neighbour"}}},
    };
    std::string why;
    EXPECT_FALSE(controls_passed(controls, &why));
    EXPECT_EQ(why, "cross_check: a neighbour; positive_device: blind probe");

    why.clear();
    EXPECT_FALSE(controls_passed(controls, &why, /*disturbed_fails=*/false));
    EXPECT_EQ(why, "positive_device: blind probe");

    const nlohmann::json quiet = {{"null", {{"verdict", "PASS"}}},
                                  {"positive_host", {{"verdict", "NOT APPLICABLE"}}}};
    why.clear();
    EXPECT_TRUE(controls_passed(quiet, &why));
    EXPECT_EQ(why, "");
    EXPECT_TRUE(controls_passed(nlohmann::json::object(), nullptr));
}

TEST(MeasureGranules, TheLargestPowerOfTwoDividingTheControlsAndRunsReadings) {
    ResultsDocument doc;
    nlohmann::json null_snaps = nlohmann::json::array();
    null_snaps.push_back(snap("null", {{"cuda.free", of(1000 * MiB)}, {"nvml.0.used", of(96 * MiB)}}));
    null_snaps.push_back(snap("null", {{"cuda.free", of(998 * MiB)}, {"cuda.total", of(1024 * MiB + 4096)}}));
    doc.controls = {{"null", {{"verdict", "PASS"}, {"snapshots", null_snaps}}},
                    {"positive_host", {{"verdict", "NOT APPLICABLE"}}}};
    RunRecord run;
    RepeatRecord repeat;
    repeat.snapshots = {snap("after_alloc", {{"nvml.0.used", of(160 * MiB)}, {"cuda.free", of(997 * MiB)}})};
    run.repeats = {repeat};
    doc.runs = {run};

    const Granules g = measure_granules(doc);
    EXPECT_EQ(g.at("cuda.free"), MiB);         // 1000, 998 and 997 MiB: the run's reading decides
    EXPECT_EQ(g.at("nvml.0.used"), 32 * MiB);  // 96 and 160 MiB
    EXPECT_FALSE(g.contains("cuda.total"));    // a capacity: no granule
}

}  // namespace
}  // namespace pinbench
