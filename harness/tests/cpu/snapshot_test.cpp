// Snapshot data model: key semantics, costs between readings and the JSON form.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "pinbench/probes/snapshot.hpp"
#include "pinbench/vocabulary/errors.hpp"

namespace pinbench {
namespace {

using nlohmann::json;

void expect_key(const std::string& key, Direction d, Budget b) {
    const KeyInfo info = describe_key(key);
    EXPECT_EQ(info.direction, d) << key;
    EXPECT_EQ(info.budget, b) << key;
}

TEST(DescribeKey, EveryDocumentedKey) {
    expect_key("cuda.free", Direction::available, Budget::dedicated);
    expect_key("cuda.total", Direction::fixed, Budget::dedicated);
    expect_key("nvml.0.used", Direction::usage, Budget::dedicated);
    expect_key("nvml.0.reserved", Direction::usage, Budget::dedicated);
    expect_key("nvml.3.free", Direction::available, Budget::dedicated);
    expect_key("nvml.0.total", Direction::fixed, Budget::dedicated);
    expect_key("nvml.1.process_used", Direction::usage, Budget::dedicated);
    expect_key("dxgi.local.usage", Direction::usage, Budget::dedicated);
    expect_key("dxgi.local.budget", Direction::fixed, Budget::dedicated);
    expect_key("dxgi.nonlocal.usage", Direction::usage, Budget::shared);
    expect_key("dxgi.nonlocal.budget", Direction::fixed, Budget::shared);
    expect_key("pdh.process.dedicated", Direction::usage, Budget::dedicated);
    expect_key("pdh.process.shared", Direction::usage, Budget::shared);
    expect_key("pdh.adapter.dedicated", Direction::usage, Budget::dedicated);
    expect_key("pdh.adapter.shared", Direction::usage, Budget::shared);
}

TEST(DescribeKey, SuffixMustBeWhole) {
    // "freed" is not "free": a usage key.
    expect_key("x.freed", Direction::usage, Budget::dedicated);
    expect_key("x.unshared", Direction::usage, Budget::dedicated);
}

TEST(CostBetween, UsageKeysCountUp) {
    EXPECT_EQ(cost_between("nvml.0.used", Reading::of(100), Reading::of(150)), 50);
    EXPECT_EQ(cost_between("nvml.0.used", Reading::of(150), Reading::of(100)), -50);
}

TEST(CostBetween, AvailableKeysCountDown) {
    EXPECT_EQ(cost_between("cuda.free", Reading::of(1000), Reading::of(900)), 100);
    EXPECT_EQ(cost_between("cuda.free", Reading::of(900), Reading::of(1000)), -100);
}

TEST(CostBetween, FixedOrUnavailableHasNoCost) {
    EXPECT_FALSE(cost_between("cuda.total", Reading::of(1000), Reading::of(900)));
    EXPECT_FALSE(cost_between("dxgi.local.budget", Reading::of(1), Reading::of(2)));
    EXPECT_FALSE(cost_between("cuda.free", Reading::not_available("x"), Reading::of(900)));
    EXPECT_FALSE(cost_between("nvml.0.used", Reading::of(1), Reading::not_available("WDDM")));
}

TEST(ReadingJson, IntegerOrReason) {
    EXPECT_EQ(json(Reading::of(42)), json(42));
    // A probe that reads no size (negative, or past 64 TiB) is written unavailable with what it
    // read: never a file the results schema refuses (issue 57).
    EXPECT_EQ(
        json(Reading::of(-7)),
        (json{{"unavailable",
               "the probe read -7 bytes, outside the physical bounds of a reading (0 to 70368744177664)"}}));
    EXPECT_TRUE(json(Reading::of((std::int64_t{64} << 40) + 1)).is_object());
    EXPECT_EQ(json(Reading::not_available("not supported under WDDM")),
              (json{{"unavailable", "not supported under WDDM"}}));
}

TEST(ReadingJson, RoundTrip) {
    for (const Reading& r :
         {Reading::of(0), Reading::of(85'899'345'920), Reading::of(std::int64_t{64} << 40),
          Reading::not_available("NVML_ERROR_NOT_SUPPORTED"), Reading::not_available("")}) {
        EXPECT_EQ(json(r).get<Reading>(), r) << json(r).dump();
    }
}

TEST(ReadingJson, RejectsAnythingElse) {
    for (const json& bad :
         {json("12"), json(1.5), json(nullptr), json::object(), json{{"unavailable", 3}}, json::array()}) {
        EXPECT_THROW(bad.get<Reading>(), InputError) << bad.dump();
    }
}

Snapshot sample_snapshot() {
    Snapshot s;
    s.label = "after_first_use";
    s.t_ms = 12.25;
    s.settle_ms = 3.5;
    s.stable = false;
    s.readings["cuda.free"] = Reading::of(20LL << 30);
    s.readings["nvml.0.process_used"] = Reading::not_available("not available under WDDM");
    return s;
}

TEST(SnapshotJson, Fields) {
    const json j = sample_snapshot();
    const json expected = {{"label", "after_first_use"},
                           {"t_ms", 12.25},
                           {"settle_ms", 3.5},
                           {"stable", false},
                           {"readings",
                            {{"cuda.free", 20LL << 30},
                             {"nvml.0.process_used", {{"unavailable", "not available under WDDM"}}}}}};
    EXPECT_EQ(j, expected);
}

TEST(SnapshotJson, RoundTrip) {
    const Snapshot s = sample_snapshot();
    const Snapshot back = json::parse(json(s).dump()).get<Snapshot>();
    EXPECT_EQ(back.label, s.label);
    EXPECT_EQ(back.t_ms, s.t_ms);
    EXPECT_EQ(back.settle_ms, s.settle_ms);
    EXPECT_EQ(back.stable, s.stable);
    EXPECT_EQ(back.readings, s.readings);
}

std::string error_of(const json& j) {
    try {
        j.get<Snapshot>();
    } catch (const InputError& e) {
        return e.what();
    }
    return "no error";
}

TEST(SnapshotJson, ErrorsNameTheField) {
    json j = sample_snapshot();
    j.erase("label");
    EXPECT_EQ(error_of(j), "snapshot.label: missing required field");

    j = sample_snapshot();
    j["stable"] = "yes";
    EXPECT_EQ(error_of(j), "snapshot.stable: expected true or false, found string");

    j = sample_snapshot();
    j["readings"]["cuda.free"] = "lots";
    EXPECT_EQ(error_of(j),
              "snapshot.readings[\"cuda.free\"]: expected an integer (bytes) or {\"unavailable\": reason}, "
              "found string");
}

}  // namespace
}  // namespace pinbench
