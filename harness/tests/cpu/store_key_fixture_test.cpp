// The store keys and measurement identities the harness gives, written into a committed fixture
// (reports/tests/written_by_cpp/store_keys.json) that pinreport's tests read
// (reports/tests/test_store_key_fixture.py): Python's store_key() and measurement_id() are
// checked against what C++ computes, not against values re-typed in Python.
// Regenerate after a deliberate change: PINBENCH_WRITE_FIXTURES=1 ctest -R StoreKeyFixture
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "committed_fixture.hpp"
#include "pinbench/store/store.hpp"

namespace pinbench {
namespace {

using nlohmann::json;

json device(const json& name, const json& model) {
    return {{"name", name}, {"driver_model", {{"current", model}}}};
}

// Records as the harness writes them, and the odd ones older or damaged files hold.
json environments() {
    return json::array({
        {{"platform", "windows"},
         {"driver", {{"release", "566.36"}}},
         {"cuda_device_count", 2},
         {"devices", {device("NVIDIA GeForce RTX 4090", "WDDM"), device("NVIDIA GeForce RTX 4090", "WDDM")}}},
        {{"platform", "linux"},
         {"driver", {{"release", "580.65.06"}}},
         {"cuda_device_count", 1},
         {"devices", {device("NVIDIA H200", "linux")}}},
        json::object(),
        {{"platform", "unknown"},
         {"driver", {{"release", {{"unavailable", "NVML: library not found"}}}}},
         {"cuda_device_count", 1},
         {"devices", {device("", "unknown")}}},
        {{"platform", "Windows 11"},
         {"driver", {{"release", "-580.65 beta/2."}}},
         {"cuda_device_count", 3},
         {"devices",
          {device("NVIDIA RTX A6000", "WDDM"), device("NVIDIA H200", "TCC"),
           device("NVIDIA H200", "unknown")}}},
        {{"platform", "windows"},
         {"driver", {{"release", "../../etc"}}},
         {"cuda_device_count", true},
         {"devices", {device(7, json::object()), {{"name", "unknown"}}}}},
        {{"platform", 3}, {"driver", "580"}, {"cuda_device_count", -1}, {"devices", "none"}},
        // Names Windows reserves for devices: never a folder of that name.
        {{"platform", "CON"},
         {"driver", {{"release", "nul.580"}}},
         {"cuda_device_count", 2},
         {"devices", {device("NUL", "aux"), device("com1", "LPT9")}}},
        {{"platform", "console"},
         {"driver", {{"release", "Com0"}}},
         {"cuda_device_count", 1},
         {"devices", {device("com10", "prn")}}},
    });
}

json identities() {
    const json repeats = json::array({{{"nonce", "b2"}}, {{"nonce", "a1"}}});
    return json::array({
        {{"measurement_id", "m-0123456789abcdef"}, {"started_at", "2025-06-01T10:00:00Z"}},
        {{"started_at", "2025-06-01T10:00:00Z"}, {"backend", "cuda"}, {"runs", {{{"repeats", repeats}}}}},
        {{"started_at", "2025-06-01T10:00:00Z"}, {"backend", "replay"}, {"runs", {{{"repeats", repeats}}}}},
        {{"started_at", "2026-01-02T03:04:05.5Z"}, {"backend", "cuda"}, {"runs", json::array()}},
        // Odd ones: a repeat without a nonce, an empty backend (read as "cuda"), a started_at
        // that is not a string, repeats that are not a list, a run that is not an object.
        {{"started_at", "2025-06-01T10:00:00Z"},
         {"backend", ""},
         {"runs", {{{"repeats", json::array({json::object(), {{"nonce", 7}}, {{"nonce", "c3"}}})}}}}},
        {{"started_at", 20250601}, {"runs", json::array({{{"repeats", "none"}}, 5})}},
    });
}

json fixture() {
    json keys = json::array();
    for (const json& env : environments()) {
        const StoreKey k = store_key_of(env);
        keys.push_back({{"environment", env},
                        {"key",
                         {{"platform", k.platform},
                          {"driver_model", k.driver_model},
                          {"gpu", k.gpu},
                          {"gpu_count", k.gpu_count},
                          {"release", k.release}}}});
    }
    json ids = json::array();
    for (const json& results : identities()) {
        ids.push_back({{"results", results}, {"measurement_id", measurement_identity(results)}});
    }
    return {{"written_by", "harness/tests/cpu/store_key_fixture_test.cpp"},
            {"store_keys", keys},
            {"measurement_identities", ids}};
}

TEST(StoreKeyFixture, CommittedCopyIsCurrent) {
    fixtures::expect_committed_fixture("store_keys.json", fixture(), "StoreKeyFixture");
}

// The fixture is worth reading only if it holds what the harness's own tests assert.
TEST(StoreKeyFixture, HoldsTheKeysTheStoreTestsAssert) {
    const json f = fixture();
    EXPECT_EQ(f["store_keys"][0]["key"]["gpu"], "nvidia-geforce-rtx-4090");
    EXPECT_EQ(f["store_keys"][2]["key"]["gpu_count"], "unknown-gpu-count");
    EXPECT_EQ(f["store_keys"][4]["key"]["driver_model"], "wddm--tcc--unknown");
    EXPECT_EQ(f["store_keys"][4]["key"]["release"], "580.65-beta-2");
    EXPECT_EQ(f["store_keys"][5]["key"]["release"], "etc");
    EXPECT_EQ(f["store_keys"][7]["key"]["platform"], "con_");
    EXPECT_EQ(f["store_keys"][7]["key"]["gpu"], "nul--com1");  // only a whole folder name is reserved
    EXPECT_EQ(f["store_keys"][7]["key"]["release"], "nul_.580");
    EXPECT_EQ(f["store_keys"][8]["key"]["gpu"], "com10");
    EXPECT_EQ(f["measurement_identities"][0]["measurement_id"], "m-0123456789abcdef");
    EXPECT_NE(f["measurement_identities"][1]["measurement_id"],
              f["measurement_identities"][2]["measurement_id"]);
}

}  // namespace
}  // namespace pinbench
