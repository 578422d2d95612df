// The arithmetic of `pinbench budget` (budget/budget_rule.hpp) against hand-computed values.
#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>

#include "budget/budget_rule.hpp"

namespace pinbench {
namespace {

constexpr std::uint64_t MiB = std::uint64_t{1} << 20, GiB = std::uint64_t{1} << 30;

TEST(BudgetRule, KeepsEightyPercentInWholeChunks) {
    EXPECT_EQ(safe_budget(10 * GiB, 256 * MiB, std::nullopt), 8 * GiB);
    // 80% of 88 MiB is 70.4 MiB: 64 MiB in 8 MiB chunks, never rounded up.
    EXPECT_EQ(safe_budget(88 * MiB, 8 * MiB, std::nullopt), 64 * MiB);
    EXPECT_EQ(safe_budget(0, 8 * MiB, std::nullopt), 0u);
    EXPECT_EQ(safe_budget(8 * MiB, 8 * MiB, std::nullopt), 0u) << "80% of one chunk is no chunk";
}

TEST(BudgetRule, TheSharedRoomBoundsIt) {
    // DXGI says 3 GiB are left of the non-local budget: 80% of 10 GiB is more.
    EXPECT_EQ(safe_budget(10 * GiB, 256 * MiB, 3 * GiB + 100 * MiB), 3 * GiB);
    EXPECT_EQ(safe_budget(1 * GiB, 256 * MiB, 3 * GiB), 768 * MiB);
    EXPECT_EQ(shared_room({{"dxgi.nonlocal.budget", 8 * GiB}, {"dxgi.nonlocal.usage", 1 * GiB}}), 7 * GiB);
    EXPECT_EQ(shared_room({{"dxgi.nonlocal.budget", 1 * GiB}, {"dxgi.nonlocal.usage", 2 * GiB}}), 0u);
    EXPECT_FALSE(shared_room({{"dxgi.nonlocal.budget", 8 * GiB}}));
    EXPECT_FALSE(
        shared_room({{"dxgi.nonlocal.budget", {{"unavailable", "no DXGI"}}}, {"dxgi.nonlocal.usage", 0}}));
}

TEST(BudgetRule, KeepFreeIsTheLargerOfFourGibAndATenth) {
    EXPECT_EQ(default_keep_free(16 * GiB), 4 * GiB);
    EXPECT_EQ(default_keep_free(100 * GiB), 10 * GiB);
    EXPECT_EQ(default_keep_free(120 * GiB), 12 * GiB) << "the lent H100's host: as before groups were read";
}

// A room under 16 GiB (a container's): 4 GiB would be most of it, so the floor is a quarter of it.
TEST(BudgetRule, KeepFreeOfASmallRoomIsAQuarterOfIt) {
    EXPECT_EQ(default_keep_free(0), 0u);
    EXPECT_EQ(default_keep_free(8 * GiB), 2 * GiB);
    EXPECT_EQ(default_keep_free(4 * GiB + 800 * MiB), 1 * GiB + 200 * MiB);  // 6 GiB less 1.2 GiB in use
    EXPECT_EQ(default_keep_free(1 * GiB), 256 * MiB);
}

// Above the OS's limit for graphics: the larger of RAM/2 and the DXGI non-local budget, plus 25%,
// in whole chunks.
TEST(BudgetRule, WindowsDefaultCapIsAboveTheOsLimit) {
    EXPECT_EQ(windows_default_cap(64 * GiB, std::nullopt, 256 * MiB), 40 * GiB);
    EXPECT_EQ(windows_default_cap(64 * GiB, 31 * GiB, 256 * MiB), 40 * GiB) << "RAM/2 is larger";
    EXPECT_EQ(windows_default_cap(64 * GiB, 40 * GiB, 256 * MiB), 50 * GiB) << "DXGI's is larger";
    EXPECT_EQ(windows_default_cap(10 * GiB, std::nullopt, 1 * GiB), 7 * GiB) << "6.25 GiB up to whole chunks";
    EXPECT_EQ(windows_default_cap(128 * MiB, std::nullopt, 256 * MiB), 256 * MiB) << "at least one chunk";
    EXPECT_EQ(windows_default_cap(std::uint64_t{1} << 62, std::nullopt, 256 * MiB), std::uint64_t{64} << 40)
        << "never above --cap's own bound";
}

TEST(BudgetRule, WindowsGraphicsLimitIsHalfOfRamAtLeast64MB) {
    EXPECT_EQ(windows_graphics_limit(64 * GiB), 32 * GiB);
    EXPECT_EQ(windows_graphics_limit(100 * MiB), 64'000'000u);
}

TEST(BudgetRule, VramCostIsReadAtTheChunkThatReachesTheBudget) {
    const nlohmann::json held = {{"device_free_before", 1000 * MiB},
                                 {"chunks",
                                  {{{"bytes", 8 * MiB}, {"ok", true}, {"device_free", 999 * MiB}},
                                   {{"bytes", 8 * MiB}, {"ok", true}, {"device_free", 997 * MiB}},
                                   {{"bytes", 8 * MiB}, {"ok", false}}}}};
    EXPECT_EQ(vram_cost_at(held, 8 * MiB), static_cast<std::int64_t>(1 * MiB));
    EXPECT_EQ(vram_cost_at(held, 16 * MiB), static_cast<std::int64_t>(3 * MiB));
    EXPECT_FALSE(vram_cost_at(held, 24 * MiB)) << "no chunk held 24 MiB";
    EXPECT_EQ(vram_cost_at(held, 0), 0);
}

TEST(BudgetRule, OnlyTheDriverFindsTheLimit) {
    EXPECT_TRUE(stopped_by_driver("driver"));
    EXPECT_TRUE(stopped_by_driver("silent_fallback"));
    for (const char* other : {"cap", "time_limit", "host_available", "memory_limit", "address_space",
                              "oom_event", "not_measured", ""})
        EXPECT_FALSE(stopped_by_driver(other));
    EXPECT_EQ(stop_words("cap", 16 * GiB, 0, ""), "capped at 16 GiB, the real limit is higher");
    EXPECT_EQ(stop_words("driver", 88 * MiB, 96 * MiB, "cuMemHostAlloc failed: X"),
              "a pin failed at 96 MiB: cuMemHostAlloc failed: X");
    EXPECT_EQ(stop_words("not_measured", 0, 0, ""),
              "not measured (--held-only; pinbench budget without it measures it)");
}

// A limit of the process bounded the search: the child's words for the limit, then where.
TEST(BudgetRule, ALimitThatStoppedTheSearchIsNamed) {
    const std::string limit =
        "the container's limit, 6 GiB, 1.2 GiB in use (cgroup v2 /, memory.max), less 1.2 GiB kept free";
    EXPECT_EQ(stop_words("memory_limit", 3 * GiB + 512 * MiB, 0, limit), limit + ": stopped at 3.5 GiB");
    EXPECT_EQ(stop_words("address_space", 1 * GiB, 0, "the address-space limit, ..."),
              "the address-space limit, ...: stopped at 1 GiB");
    EXPECT_EQ(stop_words("host_available", 2 * GiB, 0, ""),
              "available host memory minus --keep-free stopped it at 2 GiB, the real limit is higher");
    EXPECT_EQ(stop_words("oom_event", 2 * GiB, 0, "the OOM counters of cgroup /x moved"),
              "the OOM counters of cgroup /x moved, at 2 GiB");
}

// A neighbour that moved device memory while the held phase measured: no VRAM figure, the
// evidence instead; a quiet phase keeps its figure (the device's free memory before pinning
// minus the free reading at the chunk that reached the budget).
TEST(BudgetRule, ADisturbedHeldPhaseGivesNoVramFigure) {
    const nlohmann::json data = {
        {"device_free_before", 80 * GiB},
        {"chunks",
         {{{"ok", true}, {"bytes", 256 * MiB}, {"device_free", 80 * GiB - 2 * MiB}},
          {{"ok", true}, {"bytes", 256 * MiB}, {"device_free", 80 * GiB - 922 * MiB}}}}};
    const nlohmann::json quiet = {{"status", "ok"}, {"data", data}};
    EXPECT_EQ(vram_answer(quiet, 512 * MiB), (nlohmann::json{{"cost", 922 * MiB}}));
    EXPECT_EQ(vram_answer(quiet, 256 * MiB), (nlohmann::json{{"cost", 2 * MiB}}));
    nlohmann::json disturbed = quiet;
    disturbed["disturbed"] = {"pid 1578 (pinbench_neighbour) on GPU 0: +920 MiB"};
    const nlohmann::json answer = vram_answer(disturbed, 512 * MiB);
    EXPECT_TRUE(answer["cost"].is_null());
    EXPECT_EQ(answer["disturbed"], disturbed["disturbed"]);
    disturbed["disturbed"] = nlohmann::json::array();  // an empty list is no evidence
    EXPECT_EQ(vram_answer(disturbed, 512 * MiB), (nlohmann::json{{"cost", 922 * MiB}}));
}

// The single phase pins the cap at once only after a held phase that reached the cap cleanly:
// stopped by the cap, no failed call, no silent fallback, no neighbour moving device memory.
TEST(BudgetRule, TheCapIsPinnedAtOnceOnlyAfterAHeldPhaseThatReachedItCleanly) {
    const nlohmann::json capped = {
        {"status", "ok"},
        {"data",
         {{"stopped_by", "cap"},
          {"held", 16 * MiB},
          {"chunks", {{{"ok", true}, {"bytes", 8 * MiB}}, {{"ok", true}, {"bytes", 8 * MiB}}}}}}};
    EXPECT_TRUE(cap_first_applies(capped));
    nlohmann::json quiet_list = capped;
    quiet_list["disturbed"] = nlohmann::json::array();  // an empty list is no evidence
    EXPECT_TRUE(cap_first_applies(quiet_list));

    nlohmann::json disturbed = capped;
    disturbed["disturbed"] = {"pid 1578 (pinbench_neighbour) on GPU 0: +920 MiB"};
    EXPECT_FALSE(cap_first_applies(disturbed));
    for (const char* stop : {"driver", "silent_fallback", "time_limit", "host_available", ""}) {
        nlohmann::json other = capped;
        other["data"]["stopped_by"] = stop;
        EXPECT_FALSE(cap_first_applies(other)) << stop;
    }
    nlohmann::json checked = capped;
    checked["data"]["failure_check"] = {{"ok", true}, {"verdict", "clean"}};
    EXPECT_FALSE(cap_first_applies(checked));
    nlohmann::json fallback = capped;
    fallback["data"]["chunks"][1]["not_pinned"] = "cuPointerGetAttribute: not host memory";
    EXPECT_FALSE(cap_first_applies(fallback));
    EXPECT_TRUE(silent_fallback_in(fallback["data"]));
    for (const char* status : {"failed", "waived"}) {
        nlohmann::json failed = capped;
        failed["status"] = status;
        EXPECT_FALSE(cap_first_applies(failed)) << status;
    }
    EXPECT_FALSE(cap_first_applies({{"status", "failed"}, {"error", "the child crashed"}}));
    EXPECT_FALSE(silent_fallback_in(capped["data"]));
    EXPECT_TRUE(
        silent_fallback_in({{"first_try", {{"bytes", 16 * MiB}, {"ok", false}, {"not_pinned", "x"}}}}));
}

}  // namespace
}  // namespace pinbench
