#include <gtest/gtest.h>

#include <limits>
#include <set>
#include <string>
#include <vector>

#include "pinbench/results/metric_catalog.hpp"
#include "pinbench/scenario/plan.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

constexpr std::uint64_t MiB = std::uint64_t{1024} * 1024;
constexpr std::uint64_t GiB = 1024 * MiB;

std::vector<std::string> ids(const Plan& plan) {
    std::vector<std::string> out;
    for (const PlannedRun& r : plan.runs) {
        out.push_back(r.id);
    }
    return out;
}

void expect_same_run(const PlannedRun& a, const PlannedRun& b) {
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.scenario, b.scenario);
    EXPECT_EQ(a.kind, b.kind);
    EXPECT_EQ(a.api, b.api);
    EXPECT_EQ(a.size, b.size);
    EXPECT_EQ(a.count, b.count);
    EXPECT_EQ(a.gpus, b.gpus);
    EXPECT_EQ(a.repeats, b.repeats);
    EXPECT_EQ(a.timeout_s, b.timeout_s);
    EXPECT_EQ(a.driver_models, b.driver_models);
    EXPECT_EQ(a.params, b.params);
}

const char* const kTwoScenarios =
    "schema_version: 1\n"
    "scenarios:\n"
    "  - name: sweep\n"
    "    kind: overhead\n"
    "    api: [pageable, \"cudaHostAlloc:mapped+portable\"]\n"
    "    size: [1GiB, 1536KiB]\n"
    "    count: [1, 64]\n"
    "    gpus: [1, 2]\n"
    "    repeats: 3\n"
    "    timeout_s: 2.5\n"
    "    driver_models: [WDDM, linux]\n"
    "  - name: one\n"
    "    kind: overhead\n"
    "    api: cudaMallocHost\n"
    "    size: 1000B\n";

TEST(Plan, ExpandsInFileApiSizeCountGpusOrder) {
    const Plan plan = expand(parse_scenario_text(kTwoScenarios, "two.yaml", unknown_metric_reason));
    EXPECT_EQ(plan.source, "two.yaml");
    const std::vector<std::string> expected{
        "sweep/pageable/1GiB/x1/g1",
        "sweep/pageable/1GiB/x1/g2",
        "sweep/pageable/1GiB/x64/g1",
        "sweep/pageable/1GiB/x64/g2",
        "sweep/pageable/1536KiB/x1/g1",
        "sweep/pageable/1536KiB/x1/g2",
        "sweep/pageable/1536KiB/x64/g1",
        "sweep/pageable/1536KiB/x64/g2",
        "sweep/cudaHostAlloc:portable+mapped/1GiB/x1/g1",
        "sweep/cudaHostAlloc:portable+mapped/1GiB/x1/g2",
        "sweep/cudaHostAlloc:portable+mapped/1GiB/x64/g1",
        "sweep/cudaHostAlloc:portable+mapped/1GiB/x64/g2",
        "sweep/cudaHostAlloc:portable+mapped/1536KiB/x1/g1",
        "sweep/cudaHostAlloc:portable+mapped/1536KiB/x1/g2",
        "sweep/cudaHostAlloc:portable+mapped/1536KiB/x64/g1",
        "sweep/cudaHostAlloc:portable+mapped/1536KiB/x64/g2",
        "one/cudaMallocHost/1000B/x1/g1",
    };
    EXPECT_EQ(ids(plan), expected);
    for (const PlannedRun& r : plan.runs) {
        EXPECT_EQ(r.params, nlohmann::json::object()) << r.id;  // overhead: no parameters
    }
}

TEST(Plan, RunsCarryTheirScenariosSettings) {
    const Plan plan = expand(parse_scenario_text(kTwoScenarios, "two.yaml", unknown_metric_reason));
    ASSERT_EQ(plan.runs.size(), 17u);
    const PlannedRun& r = plan.runs[11];  // sweep/cudaHostAlloc:portable+mapped/1GiB/x64/g2
    EXPECT_EQ(r.scenario, "sweep");
    EXPECT_EQ(r.kind, "overhead");
    EXPECT_EQ(r.api, (ApiVariant{ApiFamily::host_alloc, flag_portable | flag_mapped}));
    EXPECT_EQ(r.size, GiB);
    EXPECT_EQ(r.count, 64);
    EXPECT_EQ(r.gpus, 2);
    EXPECT_EQ(r.repeats, 3);
    EXPECT_DOUBLE_EQ(r.timeout_s, 2.5);
    EXPECT_EQ(r.driver_models, (std::vector<std::string>{"WDDM", "linux"}));
    const PlannedRun& last = plan.runs.back();
    EXPECT_EQ(last.scenario, "one");
    EXPECT_EQ(last.api, (ApiVariant{ApiFamily::malloc_host, flag_none}));
    EXPECT_EQ(last.size, 1000u);
    EXPECT_EQ(last.repeats, 7);
    EXPECT_DOUBLE_EQ(last.timeout_s, 120.0);
    EXPECT_TRUE(last.driver_models.empty());
}

TEST(Plan, QuickScenarioHasUniqueIds) {
    const Plan plan = expand(load_scenario_file(std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml",
                                                unknown_metric_reason));
    // overhead 6 apis x 3 sizes, count 2 x 2, capacity 2, sweep 1, multi_gpu 2, workers 4,
    // churn, fragmentation, shared x2 variants, register_window.
    EXPECT_EQ(plan.runs.size(), 6u * 3 + 2u * 2 + 2 + 1 + 2 + 4 + 1 + 1 + 2 + 1);
    const std::vector<std::string> all = ids(plan);
    EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), all.size());
    EXPECT_EQ(plan.runs.front().id, "quick-overhead/pageable/64MiB/x1/g1");
    EXPECT_EQ(plan.runs.back().id, "quick-register-window/cudaHostRegister/256MiB/x1/g1");
    const std::string text = describe(plan);
    EXPECT_NE(text.find("\n36 runs, 152 repeats\n"), std::string::npos) << text;
}

TEST(Plan, DescribeListsEachRunThenTotals) {
    ScenarioFile file;
    file.path = "x.yaml";
    Scenario a;
    a.name = "a";
    a.kind = "overhead";
    a.apis = {ApiVariant{ApiFamily::host_register, flag_mapped}};
    a.sizes = {64 * MiB};
    a.repeats = 3;
    a.timeout_s = 2.5;
    a.driver_models = {"WDDM", "TCC"};
    Scenario b;
    b.name = "bb";
    b.kind = "overhead";
    b.apis = {ApiVariant{}};
    b.sizes = {4096};
    b.gpus = {8};
    file.scenarios = {a, b};
    EXPECT_EQ(
        describe(expand(file)),
        "a/cudaHostRegister:mapped/64MiB/x1/g1  repeats 3  timeout 2.5 s  kind overhead  driver models "
        "WDDM,TCC\n"
        "bb/pageable/4KiB/x1/g8                 repeats 7  timeout 120 s  kind overhead  driver models any\n"
        "2 runs, 10 repeats\n");
}

TEST(Plan, DescribeAnEmptyPlan) { EXPECT_EQ(describe(Plan{}), "0 runs, 0 repeats\n"); }

TEST(Plan, JsonRoundTripKeepsEveryField) {
    const Plan plan = expand(parse_scenario_text(kTwoScenarios, "two.yaml", unknown_metric_reason));
    for (const PlannedRun& run : plan.runs) {
        SCOPED_TRACE(run.id);
        // Through text too, as the run is passed to a child process.
        const nlohmann::json j = nlohmann::json::parse(to_json(run).dump());
        expect_same_run(planned_run_from_json(j), run);
    }
}

TEST(Plan, JsonUsesCanonicalApiAndSizeBytes) {
    PlannedRun run;
    run.id = "s/cudaHostAlloc:portable+mapped/4GiB/x2/g3";
    run.scenario = "s";
    run.kind = "overhead";
    run.api = ApiVariant{ApiFamily::host_alloc, flag_mapped | flag_portable};
    run.size = 4 * GiB;
    run.count = 2;
    run.gpus = 3;
    run.repeats = 5;
    run.timeout_s = 90;
    run.driver_models = {"linux"};
    const nlohmann::json expected = {
        {"id", "s/cudaHostAlloc:portable+mapped/4GiB/x2/g3"},
        {"scenario", "s"},
        {"kind", "overhead"},
        {"api", "cudaHostAlloc:portable+mapped"},
        {"size_bytes", 4 * GiB},
        {"count", 2},
        {"gpus", 3},
        {"repeats", 5},
        {"timeout_s", 90.0},
        {"driver_models", {"linux"}},
        {"params", nlohmann::json::object()},
    };
    EXPECT_EQ(to_json(run), expected);
    // The largest size (64 TiB: results.schema.json) survives the trip through text; one byte more
    // is refused (issue 57: a size has a physical ceiling).
    run.size = std::uint64_t{64} << 40;
    EXPECT_EQ(planned_run_from_json(nlohmann::json::parse(to_json(run).dump())).size, run.size);
    run.size += 1;
    EXPECT_THROW(planned_run_from_json(to_json(run)), InputError);
}

TEST(Plan, FromJsonRejectsBadInput) {
    PlannedRun run;
    run.id = "s/pageable/1MiB/x1/g1";
    run.scenario = "s";
    run.kind = "overhead";
    run.size = MiB;
    const nlohmann::json good = to_json(run);
    ASSERT_NO_THROW(planned_run_from_json(good));

    struct Case {
        const char* what;
        nlohmann::json j;
        const char* reason;
    };
    auto with = [&](const char* key, nlohmann::json value) {
        nlohmann::json j = good;
        j[key] = std::move(value);
        return j;
    };
    auto without = [&](const char* key) {
        nlohmann::json j = good;
        j.erase(key);
        return j;
    };
    const std::vector<Case> cases{
        {"not an object", nlohmann::json::array(), "(document): expected an object, found array"},
        {"missing id", without("id"), "id: missing required field"},
        {"missing size", without("size_bytes"), "size_bytes: missing required field"},
        {"missing driver models", without("driver_models"), "driver_models: missing required field"},
        {"id not a string", with("id", 3), "id: expected a string, found integer"},
        {"unknown api", with("api", "cudaMalloc"), "api: unknown api 'cudaMalloc'"},
        {"fractional count", with("count", 1.5), "count: expected an integer, found number"},
        {"count as a string", with("count", "1"), "count: expected an integer, found string"},
        {"zero count", with("count", 0), "count: 0 is less than the minimum of 1"},
        {"negative gpus", with("gpus", -1), "gpus: -1 is less than the minimum of 1"},
        {"repeats beyond int", with("repeats", 1LL << 40),
         "repeats: 1099511627776 is greater than the maximum of 2147483647"},
        {"zero size", with("size_bytes", 0), "size_bytes: 0 is less than the minimum of 1"},
        {"negative size", with("size_bytes", -4096), "size_bytes: -4096 is less than the minimum of 1"},
        {"zero timeout", with("timeout_s", 0), "timeout_s: 0 is less than or equal to the minimum of 0"},
        {"timeout as a string", with("timeout_s", "120"), "timeout_s: expected a number, found string"},
        // --resume runs with the stored value: 1e300 s overflowed the timer once.
        {"timeout beyond a week", with("timeout_s", 1e300),
         "timeout_s: 1e+300 is greater than the maximum of 604800"},
        {"driver models not a list", with("driver_models", "WDDM"),
         "driver_models: expected an array, found string"},
        {"driver model not a string", with("driver_models", nlohmann::json::array({1})),
         "driver_models[0]: expected a string, found integer"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.what);
        try {
            planned_run_from_json(c.j);
            ADD_FAILURE() << "accepted " << c.j.dump();
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find(c.reason), std::string::npos) << e.what();
            EXPECT_EQ(std::string(e.what()).rfind("planned run: ", 0), 0u) << e.what();
        }
    }
}

// ---- scenario kinds (format version 2, docs/kinds.md) -----------------------------------

const std::string kKinds = std::string(PINBENCH_FIXTURES) + "/scenarios/good/kinds.yaml";

std::vector<const PlannedRun*> runs_of(const Plan& plan, const std::string& scenario) {
    std::vector<const PlannedRun*> out;
    for (const PlannedRun& r : plan.runs) {
        if (r.scenario == scenario) {
            out.push_back(&r);
        }
    }
    return out;
}

std::vector<std::string> ids_of(const Plan& plan, const std::string& scenario) {
    std::vector<std::string> out;
    for (const PlannedRun* r : runs_of(plan, scenario)) {
        out.push_back(r->id);
    }
    return out;
}

TEST(PlanKinds, OverheadAndKindsWithoutAxesKeepTheClassicIds) {
    const Plan plan = expand(load_scenario_file(kKinds, unknown_metric_reason));
    EXPECT_EQ(ids_of(plan, "ovh"), std::vector<std::string>{"ovh/cudaMallocHost/64MiB/x1/g1"});
    EXPECT_EQ(runs_of(plan, "ovh").at(0)->params, nlohmann::json::object());
    EXPECT_EQ(runs_of(plan, "ovh").at(0)->kind, "overhead");

    EXPECT_EQ(ids_of(plan, "cap"),
              (std::vector<std::string>{"cap/cudaMallocHost/1GiB/x1/g1", "cap/cudaMallocHost/1GiB/x1/g2",
                                        "cap/cudaMallocHost/4GiB/x1/g1", "cap/cudaMallocHost/4GiB/x1/g2"}));
    for (const PlannedRun* r : runs_of(plan, "cap")) {
        EXPECT_EQ(r->kind, "capacity");
        EXPECT_EQ(r->params, (nlohmann::json{{"free_target", 8 * GiB}, {"resolution", 2 * MiB}}));
    }
    EXPECT_EQ(ids_of(plan, "frag"), std::vector<std::string>{"frag/cudaMallocHost/64MiB/x16/g1"});
    EXPECT_EQ(runs_of(plan, "frag").at(0)->params, (nlohmann::json{{"cycles", 5}, {"resolution", MiB}}));
    EXPECT_EQ(ids_of(plan, "window"),
              (std::vector<std::string>{"window/cudaHostRegister/64MiB/x1/g1",
                                        "window/cudaHostRegister:mapped/64MiB/x1/g1"}));
    EXPECT_EQ(runs_of(plan, "window").at(1)->params, (nlohmann::json{{"transfers", 16}}));
}

TEST(PlanKinds, SweepRunsAreSizedByStopOrCap) {
    const Plan plan = expand(load_scenario_file(kKinds, unknown_metric_reason));
    ASSERT_EQ(runs_of(plan, "curve").size(), 1u);
    const PlannedRun& curve = *runs_of(plan, "curve")[0];
    EXPECT_EQ(curve.id, "curve/cudaHostRegister/1GiB/x1/g1");
    EXPECT_EQ(curve.size, GiB);
    EXPECT_EQ(curve.params,
              (nlohmann::json{{"mode", "size_curve"}, {"start", 64 * MiB}, {"stop", GiB}, {"factor", 2.0}}));
    const PlannedRun& steps = *runs_of(plan, "steps").at(0);
    EXPECT_EQ(steps.id, "steps/cudaMallocHost/2MiB/x1/g1");
    EXPECT_EQ(steps.params, (nlohmann::json{{"mode", "count_curve"}, {"max_count", 64}}));
    const PlannedRun& most = *runs_of(plan, "most").at(0);
    EXPECT_EQ(most.id, "most/cudaMallocHost/64GiB/x1/g1");
    EXPECT_EQ(most.size, 64 * GiB);
    EXPECT_EQ(most.params,
              (nlohmann::json{{"mode", "max_pinnable"}, {"cap", 64 * GiB}, {"time_limit_s", 30.0}}));
}

// max_pinnable's free_target is an axis of sizes or "all"; without it the ids stay as before.
TEST(PlanKinds, MaxPinnableFreeTargetIsAnAxisOfSizesOrAll) {
    const Plan plan = expand(load_scenario_file(kKinds, unknown_metric_reason));
    EXPECT_EQ(ids_of(plan, "pinnable"),
              (std::vector<std::string>{"pinnable/cudaMallocHost/8GiB/x1/g1/free_target=1GiB",
                                        "pinnable/cudaMallocHost/8GiB/x1/g1/free_target=all"}));
    EXPECT_EQ(runs_of(plan, "pinnable").at(1)->params, (nlohmann::json{{"mode", "max_pinnable"},
                                                                       {"cap", 8 * GiB},
                                                                       {"time_limit_s", 60.0},
                                                                       {"free_target", "all"},
                                                                       {"host_limit", 4 * GiB},
                                                                       {"enforce_host_limit", "on"}}));
    EXPECT_EQ(runs_of(plan, "most").at(0)->id, "most/cudaMallocHost/64GiB/x1/g1");
}

TEST(PlanKinds, AxisParametersMultiplyRunsInTableOrder) {
    const Plan plan = expand(load_scenario_file(kKinds, unknown_metric_reason));
    EXPECT_EQ(
        ids_of(plan, "multi"),
        (std::vector<std::string>{"multi/cudaHostAlloc:portable/1GiB/x1/g2/order=before/peer_access=on",
                                  "multi/cudaHostAlloc:portable/1GiB/x1/g2/order=after/peer_access=on"}));
    EXPECT_EQ(runs_of(plan, "multi").at(0)->params,
              (nlohmann::json{{"order", "before"}, {"peer_access", "on"}}));

    // prefetch_factor applies to the framework variant only.
    const std::vector<const PlannedRun*> loader = runs_of(plan, "loader");
    EXPECT_EQ(ids_of(plan, "loader"), (std::vector<std::string>{
                                          "loader/cudaMallocHost/64MiB/x1/g1/workers=0/variant=per_process",
                                          "loader/cudaMallocHost/64MiB/x1/g1/workers=0/variant=framework",
                                          "loader/cudaMallocHost/64MiB/x1/g1/workers=4/variant=per_process",
                                          "loader/cudaMallocHost/64MiB/x1/g1/workers=4/variant=framework",
                                      }));
    ASSERT_EQ(loader.size(), 4u);
    EXPECT_EQ(loader[0]->params, (nlohmann::json{{"workers", 0}, {"variant", "per_process"}}));
    EXPECT_EQ(loader[3]->params,
              (nlohmann::json{{"workers", 4}, {"variant", "framework"}, {"prefetch_factor", 4}}));
    EXPECT_TRUE(loader[3]->params["workers"].is_number_integer());

    EXPECT_EQ(ids_of(plan, "churn"),
              (std::vector<std::string>{"churn/cudaMallocHost/256MiB/x1/g1/settle=immediate",
                                        "churn/cudaMallocHost/256MiB/x1/g1/settle=settled"}));
    EXPECT_EQ(runs_of(plan, "churn").at(1)->params,
              (nlohmann::json{{"cycles", 10}, {"settle", "settled"}, {"final_wait_s", 2.0}}));

    EXPECT_EQ(ids_of(plan, "shm"), (std::vector<std::string>{
                                       "shm/cudaHostRegister/512MiB/x1/g1/processes=1/variant=shared",
                                       "shm/cudaHostRegister/512MiB/x1/g1/processes=1/variant=private",
                                       "shm/cudaHostRegister/512MiB/x1/g1/processes=2/variant=shared",
                                       "shm/cudaHostRegister/512MiB/x1/g1/processes=2/variant=private",
                                   }));
    EXPECT_EQ(runs_of(plan, "shm").at(2)->params, (nlohmann::json{{"processes", 2}, {"variant", "shared"}}));

    const std::vector<std::string> all = ids(plan);
    EXPECT_EQ(std::set<std::string>(all.begin(), all.end()).size(), all.size()) << "ids are unique";
}

TEST(PlanKinds, JsonRoundTripKeepsTheParams) {
    const Plan plan = expand(load_scenario_file(kKinds, unknown_metric_reason));
    for (const PlannedRun& run : plan.runs) {
        SCOPED_TRACE(run.id);
        expect_same_run(planned_run_from_json(nlohmann::json::parse(to_json(run).dump())), run);
    }
}

TEST(PlanKinds, DescribeShowsTheKind) {
    const std::string text = describe(expand(load_scenario_file(kKinds, unknown_metric_reason)));
    EXPECT_NE(text.find("repeats 3  timeout 120 s  kind register_window  driver models any\n"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("churn/cudaMallocHost/256MiB/x1/g1/settle=settled"), std::string::npos) << text;
    EXPECT_NE(text.find("kind churn "), std::string::npos) << text;
    EXPECT_NE(text.find("\n27 runs, 81 repeats\n"), std::string::npos) << text;
}

}  // namespace
}  // namespace pinbench
