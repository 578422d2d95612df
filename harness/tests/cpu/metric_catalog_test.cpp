// The metric catalog (pinbench/results/metric_catalog.hpp) covers what the harness writes: every metric
// of the committed real results matches an entry of its run's kind with the same unit.
#include <gtest/gtest.h>

#include <optional>
#include <set>
#include <stdexcept>
#include <string>

#include "cuda/traced_apis.hpp"
#include "pinbench/probes/snapshot.hpp"
#include "pinbench/results/metric_catalog.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/vocabulary/api_variant.hpp"
#include "results/kind_metrics.hpp"
#include "scenario/kind_spec.hpp"
#include "scenario/kind_table.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

// A kind's derive names a metric and its samples; the unit is the catalog entry's, and a name
// the catalog does not list for that kind is a bug that fails at once, data or not.
TEST(MetricCatalog, TheSinkTakesTheUnitFromTheCatalogAndRefusesWhatItDoesNotList) {
    const Granules granules{{"cuda.free", 2 << 20}};
    std::map<std::string, MetricSummary> metrics;
    MetricSink sink("register_window", granules, metrics);
    sink.put("register_window.time_ratio", std::vector<double>{1.5, 2.5});
    sink.put("register_window.peak.cuda.free", std::vector<double>{4 << 20}, "cuda.free");
    ASSERT_EQ(metrics.size(), 2u);
    EXPECT_EQ(metrics.at("register_window.time_ratio").unit, "ratio");
    EXPECT_EQ(metrics.at("register_window.time_ratio").samples, (std::vector<double>{1.5, 2.5}));
    EXPECT_EQ(metrics.at("register_window.peak.cuda.free").unit, "bytes");
    EXPECT_EQ(metrics.at("register_window.peak.cuda.free").granule, 2 << 20);
    EXPECT_THROW(sink.put("register_window.invented", std::vector<double>{1}), std::logic_error);
    EXPECT_THROW(sink.put("churn.creep.cuda.free", std::nullopt), std::logic_error)
        << "another kind's metric";
    EXPECT_EQ(metrics.size(), 2u);
}

TEST(MetricCatalog, EveryMetricOfTheCommittedResultsIsCatalogued) {
    std::set<std::string> seen_kinds;
    std::size_t checked = 0;
    for (const char* file : {"results/h200-nightly-free-vram/results.json",
                             "results/h200-pinnable/pinnable.json", "results/h200-apis/results.json",
                             "results/h200x2-multi-gpu/results.json", "results/h200-quick/results.json"}) {
        const ResultsDocument doc = load_results(std::string(PINBENCH_SOURCE_DIR) + "/" + file);
        for (const RunRecord& run : doc.runs) {
            const std::string kind = run.run.kind.empty() ? "overhead" : run.run.kind;
            seen_kinds.insert(kind);
            for (const auto& [name, metric] : run.metrics) {
                const MetricSpec* spec = find_metric_spec(kind, name);
                ASSERT_NE(spec, nullptr)
                    << file << ": " << run.run.id << ": " << name << " is not in the catalog";
                EXPECT_EQ(spec->unit, metric.unit) << name;
                ++checked;
            }
        }
    }
    // Every kind of the registry but those a team adds for its own program (command).
    std::set<std::string> every_kind;
    for (const KindSpec& k : kind_specs()) {
        if (k.report != ReportPlace::optional_section) every_kind.emplace(k.name);
    }
    EXPECT_EQ(seen_kinds, every_kind);
    EXPECT_GT(checked, 2000u);
}

TEST(MetricCatalog, PatternsMatchWhatTheyNameAndNothingElse) {
    EXPECT_EQ(find_metric_spec("overhead", "cost.after_first_use.nvml.0.used")->pattern,
              "cost.after_first_use.<key>");
    EXPECT_EQ(find_metric_spec("capacity", "time.bisect_with_ms")->pattern, "time.<timing>_ms");
    EXPECT_EQ(find_metric_spec("register_window", "time.kept_per_transfer_ms")->headline, true);
    EXPECT_EQ(find_metric_spec("sweep", "sweep.cost.67108864.cuda.free")->pattern,
              "sweep.cost.<bytes>.<key>");
    EXPECT_EQ(find_metric_spec("sweep", "sweep.cost.x12.cuda.free")->pattern, "sweep.cost.x<k>.<key>");
    EXPECT_EQ(find_metric_spec("sweep", "sweep.free_before")->direction, "neither");
    EXPECT_EQ(find_metric_spec("sweep", "sweep.max_pinnable")->direction, "higher_is_better");
    EXPECT_EQ(find_metric_spec("workers", "cost.after_alloc.cuda.free"), nullptr) << "not a workers metric";
    EXPECT_EQ(find_metric_spec("sweep", "sweep.invented"), nullptr);
    EXPECT_EQ(find_metric_spec("sweep", "sweep.cost.12ab.cuda.free"), nullptr);
    EXPECT_EQ(find_metric_spec("overhead", "time._ms"), nullptr);
    const nlohmann::json j = metric_catalog_json();
    EXPECT_EQ(j.at("metric_catalog_version"), metric_catalog_version);
    EXPECT_EQ(j.at("metrics").size(), metric_catalog().size());
}

// Bytes are of one budget (the rule is about dedicated memory); a probe key's bytes are the key's.
TEST(MetricCatalog, EveryMetricSaysWhichBudgetItsBytesAreOf) {
    for (const MetricSpec& s : metric_catalog()) {
        SCOPED_TRACE(std::string(s.pattern));
        const bool has_key = s.pattern.find("<key>") != std::string_view::npos;
        if (has_key) {
            EXPECT_EQ(s.budget, "probe");
        } else if (s.unit == "bytes") {
            EXPECT_TRUE(s.budget == "dedicated" || s.budget == "host") << "bytes without a key must say";
        } else {
            EXPECT_EQ(s.budget, "none");
        }
    }
    EXPECT_EQ(find_metric_spec("capacity", "capacity.loss")->budget, "dedicated");
    EXPECT_EQ(find_metric_spec("sweep", "sweep.max_pinnable")->budget, "host");
    EXPECT_EQ(describe_key("dxgi.nonlocal.usage").budget, Budget::shared);
    EXPECT_EQ(describe_key("pdh.process.shared").budget, Budget::shared);
    EXPECT_EQ(describe_key("nvml.0.free").direction, Direction::available);
    EXPECT_EQ(describe_key("dxgi.local.budget").direction, Direction::fixed);
    EXPECT_EQ(describe_key("cuda.free").budget, Budget::dedicated);
}

// The report's words for every kind come from the kind: a title for each, in the registry's order.
TEST(MetricCatalog, EveryKindHasItsReportTitleAndPlace) {
    const nlohmann::json kinds = metric_catalog_json().at("kinds");
    ASSERT_EQ(kinds.size(), kind_specs().size());
    for (std::size_t i = 0; i < kinds.size(); ++i) {
        EXPECT_EQ(kinds[i].at("name"), kind_specs()[i].name);
        EXPECT_FALSE(kinds[i].at("title").get<std::string>().empty()) << kinds[i].dump();
    }
    EXPECT_EQ(kinds[0].at("report"), "cost_and_rule");
    EXPECT_EQ(kinds.back().at("report"), "optional_section");
    EXPECT_EQ(kinds[2].at("charts"), nlohmann::json({"sweep", "pinnable"}));
}

// What the scenario parser is handed to check an expect claim's metric names with.
TEST(MetricCatalog, AnUnknownMetricNameGetsTheClosestCataloguedOne) {
    EXPECT_EQ(unknown_metric_reason("churn.creep.nvml.0.used"), std::nullopt);
    EXPECT_EQ(unknown_metric_reason("cost.after_first_use.cuda.free"), std::nullopt);
    EXPECT_EQ(unknown_metric_reason("churn.creap.nvml.0.used"),
              "unknown metric 'churn.creap.nvml.0.used': no kind writes it; did you mean "
              "'churn.creep.nvml.0.used'?");
    EXPECT_EQ(
        unknown_metric_reason("nothing.like.any.metric.at.all"),
        "unknown metric 'nothing.like.any.metric.at.all': no kind writes it (`pinbench metrics` lists every "
        "metric)");
}

// What `pinreport trace` reads about the traced calls is the table's own (cuda/traced_apis.hpp): every
// traced API has a family and an effect, and every family's store API variants are spellings the
// scenario takes.
TEST(MetricCatalog, ExportsTheTracedApisAndTheirFamiliesStoreVariants) {
    const nlohmann::json j = metric_catalog_json();
    ASSERT_EQ(j.at("trace_apis").size(), std::size(trace::kTracedApis));
    int acquiring = 0;
    for (const auto& a : j.at("trace_apis")) {
        EXPECT_FALSE(a.at("family").get<std::string>().empty()) << a.dump();
        EXPECT_FALSE(a.at("effect").get<std::string>().empty()) << a.dump();
        acquiring += a.at("effect") == "acquire" ? 1 : 0;
    }
    EXPECT_EQ(acquiring, 5);
    ASSERT_EQ(j.at("trace_families").size(), 4u);
    for (const auto& [family, variants] : j.at("trace_families").items()) {
        ASSERT_FALSE(variants.empty()) << family;
        for (const auto& v : variants) {
            std::string why;
            EXPECT_TRUE(parse_api_variant(v.get<std::string>(), &why).has_value()) << v << ": " << why;
        }
    }
}

}  // namespace
}  // namespace pinbench
