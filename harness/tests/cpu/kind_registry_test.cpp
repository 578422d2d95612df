// Each kind is one unit (harness/src/scenario/kind_spec.hpp): it measures, catalogues what it
// derives, and says why it cannot run on a machine; the catalog is assembled from the kinds.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "pinbench/results/metric_catalog.hpp"
#include "pinbench/scenario/plan.hpp"
#include "scenario/kind_spec.hpp"
#include "scenario/kind_table.hpp"

namespace pinbench {
namespace {

constexpr std::uint64_t GiB = std::uint64_t{1} << 30;

TEST(KindRegistry, EveryKindMeasuresAndCataloguesWhatItDerives) {
    const std::set<std::string_view> units{"bytes", "ms", "ratio", "count"};
    const std::set<std::string_view> directions{higher_is_worse, higher_is_better, neither_direction};
    ASSERT_FALSE(kind_specs().empty());  // which kinds: ScenarioKinds.TableMatchesDocsKinds
    for (const KindSpec& k : kind_specs()) {
        SCOPED_TRACE(std::string(k.name));
        EXPECT_NE(k.measure, nullptr);
        EXPECT_EQ(k.derive == nullptr, k.metrics.empty())
            << "a derivation and its catalog entries go together";
        for (const KindMetric& m : k.metrics) {
            EXPECT_TRUE(units.contains(m.unit)) << m.pattern;
            EXPECT_TRUE(directions.contains(m.direction)) << m.pattern;
            // Each entry is in the catalog, as this kind's.
            const auto& catalog = metric_catalog();
            EXPECT_TRUE(std::any_of(catalog.begin(), catalog.end(), [&](const MetricSpec& s) {
                return s.pattern == m.pattern && s.kinds == k.name && s.unit == m.unit;
            })) << m.pattern;
        }
    }
}

TEST(KindRegistry, CatalogOrderPutsTheKindsOwnTimingsFirst) {
    const auto& catalog = metric_catalog();
    ASSERT_FALSE(catalog.empty());
    EXPECT_EQ(catalog.front().pattern, "cost.after_alloc.<key>");
    EXPECT_EQ(catalog.front().kinds, "overhead multi_gpu") << "the kinds with writes_allocation_costs";
    EXPECT_EQ(catalog.back().pattern, "time.<timing>_ms");
    EXPECT_EQ(find_metric_spec("register_window", "time.kept_per_transfer_ms")->kinds, "register_window");
    EXPECT_EQ(find_metric_spec("churn", "time.kept_per_transfer_ms")->pattern, "time.<timing>_ms");
}

PlannedRun run_of(const char* kind, int gpus, nlohmann::json params) {
    PlannedRun run;
    run.id = std::string(kind) + "/test";
    run.kind = kind;
    run.gpus = gpus;
    run.params = std::move(params);
    return run;
}

TEST(KindRegistry, WaiveReasonsAreTheKindsAndTheGpuCount) {
    const PlannedRun two = run_of("multi_gpu", 2, {{"order", "after"}, {"peer_access", "off"}});
    EXPECT_EQ(waive_reason(two, Machine{1, {}}), "needs 2 GPU(s), this machine has 1");
    EXPECT_EQ(waive_reason(two, Machine{2, {}}), std::nullopt);

    const PlannedRun cap = run_of("capacity", 1, {{"free_target", 8 * GiB}, {"resolution", 2u << 20}});
    EXPECT_EQ(waive_reason(cap, Machine{1, {}}), std::nullopt) << "the parent cannot tell device memory";
    EXPECT_EQ(waive_reason(cap, Machine{1, MemInfo{20 * GiB, 80 * GiB}}), std::nullopt);
    EXPECT_EQ(waive_reason(cap, Machine{1, MemInfo{4 * GiB, 80 * GiB}}),
              "free_target 8GiB is not below device 0's free memory (4GiB) after creating the context");
    EXPECT_EQ(waive_reason(cap, Machine{1, MemInfo{4 * GiB, 6 * GiB}}),
              "free_target 8GiB is not below device 0's memory (6GiB)");

    const MemInfo small{GiB, 2 * GiB};
    EXPECT_EQ(waive_reason(run_of("sweep", 1, {{"mode", "max_pinnable"}, {"free_target", 8 * GiB}}),
                           Machine{1, small}),
              "free_target 8GiB is not below device 0's memory (2GiB)");
    EXPECT_EQ(waive_reason(run_of("sweep", 1, {{"mode", "max_pinnable"}, {"free_target", "all"}}),
                           Machine{1, small}),
              std::nullopt)
        << "no fill";
    EXPECT_EQ(waive_reason(run_of("sweep", 1, {{"mode", "size_curve"}}), Machine{1, small}), std::nullopt);
    EXPECT_EQ(waive_reason(run_of("overhead", 1, {}), Machine{0, {}}), "needs 1 GPU(s), this machine has 0");
}

}  // namespace
}  // namespace pinbench
