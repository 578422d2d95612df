#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "pinbench/results/metric_catalog.hpp"
#include "pinbench/scenario/scenario.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "scenario/kind_table.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

constexpr std::uint64_t MiB = std::uint64_t{1024} * 1024;
constexpr std::uint64_t GiB = 1024 * MiB;

const std::string kGood = std::string(PINBENCH_FIXTURES) + "/scenarios/good/";

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

ApiVariant api(const char* spelling) {
    const auto v = parse_api_variant(spelling, nullptr);
    if (!v) {
        throw std::logic_error(std::string("bad api in test: ") + spelling);
    }
    return *v;
}

// The location part of an InputError, for asserting where a message points.
std::string location_of(const std::string& text) {
    try {
        parse_scenario_text(text, "mem.yaml", unknown_metric_reason);
    } catch (const InputError& e) {
        return std::to_string(e.line()) + ":" + std::to_string(e.column());
    }
    return "accepted";
}

TEST(ScenarioFile, MinimalFileTakesEveryDefault) {
    const std::string path = kGood + "minimal.yaml";
    const ScenarioFile f = load_scenario_file(path, unknown_metric_reason);
    EXPECT_EQ(f.path, path);
    EXPECT_EQ(f.schema_version, 1);
    ASSERT_EQ(f.scenarios.size(), 1u);
    const Scenario& s = f.scenarios[0];
    EXPECT_EQ(s.name, "minimal-repro");
    EXPECT_EQ(s.kind, "overhead");
    EXPECT_EQ(s.description, "");
    EXPECT_EQ(s.apis, std::vector<ApiVariant>{api("cudaMallocHost")});
    EXPECT_EQ(s.sizes, std::vector<std::uint64_t>{64 * MiB});
    EXPECT_EQ(s.counts, std::vector<int>{1});
    EXPECT_EQ(s.gpus, std::vector<int>{1});
    EXPECT_EQ(s.repeats, 7);
    EXPECT_DOUBLE_EQ(s.timeout_s, 120.0);
    EXPECT_TRUE(s.driver_models.empty());
    EXPECT_EQ(s.expect, nlohmann::json::object());
    EXPECT_EQ(s.params, nlohmann::json::object());
    EXPECT_EQ(s.where.file, path);
    EXPECT_EQ(s.where.line, 4);
    EXPECT_EQ(s.where.column, 5);
}

TEST(ScenarioFile, FullFileReadsEveryKey) {
    const ScenarioFile f = load_scenario_file(kGood + "full.yaml", unknown_metric_reason);
    ASSERT_EQ(f.scenarios.size(), 2u);
    const Scenario& s = f.scenarios[0];
    EXPECT_EQ(s.name, "sweep");
    EXPECT_EQ(s.description, "Size sweep: the curve that estimates how much to reserve");
    EXPECT_EQ(s.apis, (std::vector<ApiVariant>{api("pageable"), api("cudaMallocHost"),
                                               api("cudaHostAlloc:portable+mapped"),
                                               api("cudaHostRegister:mapped")}));
    EXPECT_EQ(s.sizes, (std::vector<std::uint64_t>{64 * MiB, GiB + GiB / 2, 512'000, 4096}));
    EXPECT_EQ(s.counts, (std::vector<int>{1, 64}));
    EXPECT_EQ(s.gpus, (std::vector<int>{1, 2}));
    EXPECT_EQ(s.repeats, 3);
    EXPECT_DOUBLE_EQ(s.timeout_s, 2.5);
    EXPECT_EQ(s.driver_models, (std::vector<std::string>{"WDDM", "TCC", "MCDM", "linux"}));
    // The scenario's own expect replaces the default one as a whole (no 0.3 from defaults).
    const nlohmann::json expect = {
        {"WDDM", {{"max_overhead_ratio", 0.20}, {"min_overhead_ratio", 0.10}}},
        {"linux", {{"max_overhead_bytes", 4 * MiB}}},
    };
    EXPECT_EQ(s.expect, expect);
    EXPECT_TRUE(s.expect["linux"]["max_overhead_bytes"].is_number_integer());
    EXPECT_EQ(s.where.line, 10);
}

TEST(ScenarioFile, DefaultsApplyAndAScenariosOwnValueWins) {
    const ScenarioFile f = load_scenario_file(kGood + "full.yaml", unknown_metric_reason);
    ASSERT_EQ(f.scenarios.size(), 2u);
    EXPECT_EQ(f.scenarios[0].repeats, 3);  // own value
    const Scenario& s = f.scenarios[1];
    EXPECT_EQ(s.name, "inherits.defaults_1");
    EXPECT_EQ(s.apis, std::vector<ApiVariant>{api("cudaHostAlloc")});
    EXPECT_EQ(s.sizes, std::vector<std::uint64_t>{GiB});  // quoted size is fine
    EXPECT_EQ(s.repeats, 5);
    EXPECT_DOUBLE_EQ(s.timeout_s, 60.0);
    EXPECT_EQ(s.driver_models, (std::vector<std::string>{"WDDM", "linux"}));
    EXPECT_EQ(s.expect, (nlohmann::json{{"WDDM", {{"max_overhead_ratio", 0.3}}}}));
    EXPECT_EQ(s.counts, std::vector<int>{1});
}

TEST(ScenarioFile, DefaultExpectIsCheckedAgainstEachScenariosDriverModels) {
    const std::string text =
        "schema_version: 1\n"
        "defaults:\n"
        "  expect: {WDDM: {max_overhead_ratio: 0.2}}\n"
        "scenarios:\n"
        "  - {name: a, kind: overhead, api: pageable, size: 1MiB}\n"
        "  - {name: b, kind: overhead, api: pageable, size: 1MiB, driver_models: linux}\n";
    EXPECT_EQ(location_of(text), "3:12");  // the WDDM entry in defaults
    try {
        parse_scenario_text(text, "mem.yaml", unknown_metric_reason);
        FAIL() << "accepted";
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("expect for 'WDDM'"), std::string::npos) << e.what();
    }
}

TEST(ScenarioFile, SingleValuesAndFlowListsAreAccepted) {
    const ScenarioFile f = parse_scenario_text(
        "schema_version: 1\n"
        "scenarios:\n"
        "  - name: '123'\n"
        "    kind: overhead\n"
        "    api: [cudaHostAlloc:portable, 'cudaHostRegister:mapped']\n"
        "    size: 4096 B\n"
        "    count: 8\n"
        "    gpus: [2, 8]\n"
        "    timeout_s: 30\n"
        "    driver_models: TCC\n",
        "mem.yaml", unknown_metric_reason);
    const Scenario& s = f.scenarios.at(0);
    EXPECT_EQ(s.name, "123");
    EXPECT_EQ(s.apis,
              (std::vector<ApiVariant>{api("cudaHostAlloc:portable"), api("cudaHostRegister:mapped")}));
    EXPECT_EQ(s.sizes, std::vector<std::uint64_t>{4096});
    EXPECT_EQ(s.counts, std::vector<int>{8});
    EXPECT_EQ(s.gpus, (std::vector<int>{2, 8}));
    EXPECT_DOUBLE_EQ(s.timeout_s, 30.0);
    EXPECT_EQ(s.driver_models, std::vector<std::string>{"TCC"});
}

TEST(ScenarioFile, ErrorsNameThePathGivenForMessages) {
    try {
        parse_scenario_text("schema_version: 3\nscenarios: []\n", "some/where.yaml", unknown_metric_reason);
        FAIL() << "accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(
            std::string(e.what()),
            "some/where.yaml:1:17: unsupported schema_version 3 (this pinbench reads versions 1 and 2)");
        EXPECT_EQ(e.file(), "some/where.yaml");
        EXPECT_EQ(e.line(), 1);
        EXPECT_EQ(e.column(), 17);
    }
}

TEST(ScenarioFile, MissingFileIsAPathOnlyInputError) {
    const std::string path = kGood + "no-such-file.yaml";
    try {
        load_scenario_file(path, unknown_metric_reason);
        FAIL() << "accepted";
    } catch (const InputError& e) {
        const std::string what = e.what();
        EXPECT_EQ(what.rfind("cannot read '" + path + "': ", 0), 0u) << what;
        EXPECT_GT(what.size(), ("cannot read '" + path + "': ").size()) << "gives a reason";
        EXPECT_EQ(e.line(), 0);
    }
    try {
        load_scenario_file(kGood, unknown_metric_reason);
        FAIL() << "accepted a directory";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()),
                  "cannot read '" + kGood + "': it is a directory, not a regular file");
    }
}

TEST(ScenarioFile, EveryGoodFixtureParses) {
    int n = 0;
    for (const auto& entry : fs::directory_iterator(kGood)) {
        SCOPED_TRACE(entry.path().string());
        EXPECT_NO_THROW(load_scenario_file(entry.path().string(), unknown_metric_reason));
        ++n;
    }
    EXPECT_GE(n, 2);
}

TEST(ScenarioFile, QuickScenarioIsTheDocumentedMatrix) {
    const ScenarioFile f =
        load_scenario_file(std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml", unknown_metric_reason);
    ASSERT_EQ(f.scenarios.size(), 10u);  // overhead, count, then one scenario per other kind
    std::set<std::string> kinds;
    for (const Scenario& s : f.scenarios) kinds.insert(s.kind);
    EXPECT_EQ(kinds, (std::set<std::string>{"overhead", "capacity", "sweep", "multi_gpu", "workers", "churn",
                                            "fragmentation", "shared", "register_window"}));
    const Scenario& a = f.scenarios[0];
    EXPECT_EQ(a.name, "quick-overhead");
    EXPECT_EQ(a.kind, "overhead");
    EXPECT_EQ(a.apis,
              (std::vector<ApiVariant>{api("pageable"), api("cudaMallocHost"), api("cudaHostAlloc:portable"),
                                       api("cudaHostAlloc:mapped"), api("cudaHostAlloc:write_combined"),
                                       api("cudaHostRegister")}));
    EXPECT_EQ(a.sizes, (std::vector<std::uint64_t>{64 * MiB, 256 * MiB, GiB}));
    EXPECT_EQ(a.counts, std::vector<int>{1});
    EXPECT_EQ(a.repeats, 5);
    const Scenario& b = f.scenarios[1];
    EXPECT_EQ(b.name, "quick-count");
    EXPECT_EQ(b.apis, (std::vector<ApiVariant>{api("cudaMallocHost"), api("cudaHostRegister")}));
    EXPECT_EQ(b.sizes, std::vector<std::uint64_t>{64 * MiB});
    EXPECT_EQ(b.counts, (std::vector<int>{1, 64}));
    EXPECT_EQ(b.repeats, 5);
    // Only the brief's WDDM claim is asserted; nothing measured is written in as expected.
    const nlohmann::json claim = {{"WDDM", {{"max_overhead_ratio", 0.20}, {"min_overhead_ratio", 0.10}}}};
    EXPECT_EQ(a.expect, claim);
    EXPECT_EQ(b.expect, claim);
}

// Every ```yaml block in the format document is a valid file, so the examples cannot rot.
TEST(ScenarioFile, DocumentationExamplesParse) {
    const std::string doc = read_text(std::string(PINBENCH_SOURCE_DIR) + "/docs/scenario-format.md");
    ASSERT_FALSE(doc.empty());
    int blocks = 0;
    for (std::size_t at = doc.find("```yaml\n"); at != std::string::npos; at = doc.find("```yaml\n", at)) {
        at += 8;
        const std::size_t end = doc.find("```", at);
        ASSERT_NE(end, std::string::npos);
        const std::string block = doc.substr(at, end - at);
        SCOPED_TRACE("block " + std::to_string(blocks + 1) + ":\n" + block);
        EXPECT_NO_THROW(parse_scenario_text(block, "docs/scenario-format.md", unknown_metric_reason));
        ++blocks;
        at = end + 3;
    }
    EXPECT_GE(blocks, 1);
}

// The editor schema must list exactly the keys the parser accepts.
TEST(ScenarioFile, JsonSchemaListsTheParsersKeys) {
    const nlohmann::json schema =
        nlohmann::json::parse(read_text(std::string(PINBENCH_SOURCE_DIR) + "/scenarios/schema.json"));
    EXPECT_EQ(schema.at("$schema"), "https://json-schema.org/draft/2020-12/schema");
    auto keys = [](const nlohmann::json& properties) {
        std::set<std::string> out;
        for (const auto& [k, v] : properties.items()) {
            out.insert(k);
        }
        return out;
    };
    EXPECT_EQ(keys(schema.at("properties")),
              (std::set<std::string>{"schema_version", "defaults", "scenarios"}));
    EXPECT_EQ(schema.at("properties").at("schema_version").at("enum"),
              (nlohmann::json{1, scenario_schema_version}));
    const std::set<std::string> scenario_keys{"name",      "kind",          "description", "api",
                                              "size",      "count",         "gpus",        "repeats",
                                              "timeout_s", "driver_models", "expect",      "params"};
    const nlohmann::json& defs = schema.at("$defs");
    EXPECT_EQ(keys(defs.at("scenario").at("properties")), scenario_keys);
    std::set<std::string> default_keys = scenario_keys;
    default_keys.erase("name");
    EXPECT_EQ(keys(defs.at("defaults").at("properties")), default_keys);
    EXPECT_EQ(
        keys(defs.at("limits").at("properties")),
        (std::set<std::string>{"max_overhead_ratio", "min_overhead_ratio", "max_overhead_bytes", "metrics"}));
}

// The parser checks an expect claim's metric names with the check it is handed (the CLI hands it
// the catalog's, unknown_metric_reason): the check's message, located at the name.
TEST(ScenarioFile, ExpectMetricNamesAreJudgedByTheHandedCheck) {
    const std::string text =
        "schema_version: 2\n"
        "scenarios:\n"
        "  - name: c\n"
        "    kind: churn\n"
        "    api: cudaMallocHost\n"
        "    size: 1GiB\n"
        "    params: {cycles: 2}\n"
        "    expect:\n"
        "      linux: {metrics: {churn.creep.cuda.free: {min: 2MiB}}}\n";
    const MetricNameCheck refuse = [](std::string_view m) -> std::optional<std::string> {
        return "refused " + std::string(m);
    };
    try {
        parse_scenario_text(text, "x.yaml", refuse);
        FAIL() << "accepted";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), "x.yaml:9:25: refused churn.creep.cuda.free");
    }
    const MetricNameCheck accept = [](std::string_view) -> std::optional<std::string> {
        return std::nullopt;
    };
    EXPECT_NO_THROW(parse_scenario_text(text, "x.yaml", accept));
}

TEST(ScenarioFile, ExpectMetricLimitsTakeNumbersAndSizes) {
    const ScenarioFile f = parse_scenario_text(
        "schema_version: 2\n"
        "scenarios:\n"
        "  - name: c\n"
        "    kind: churn\n"
        "    api: cudaMallocHost\n"
        "    size: 1GiB\n"
        "    params: {cycles: 2}\n"
        "    expect:\n"
        "      WDDM: {metrics: {churn.creep.cuda.free: {min: 2MiB}, register_window.time_ratio: {max: "
        "1.5}}}\n",
        "x.yaml", unknown_metric_reason);
    const nlohmann::json& m = f.scenarios[0].expect.at("WDDM").at("metrics");
    EXPECT_DOUBLE_EQ(m.at("churn.creep.cuda.free").at("min").get<double>(), 2.0 * MiB);
    EXPECT_DOUBLE_EQ(m.at("register_window.time_ratio").at("max").get<double>(), 1.5);
    EXPECT_FALSE(m.at("churn.creep.cuda.free").contains("max"));
}

TEST(ScenarioFile, ToJsonCarriesEveryField) {
    const ScenarioFile f = load_scenario_file(kGood + "full.yaml", unknown_metric_reason);
    const nlohmann::json j = to_json(f.scenarios.at(0));
    EXPECT_EQ(j.at("name"), "sweep");
    EXPECT_EQ(j.at("kind"), "overhead");
    EXPECT_EQ(j.at("description"), "Size sweep: the curve that estimates how much to reserve");
    EXPECT_EQ(j.at("api"), (nlohmann::json{"pageable", "cudaMallocHost", "cudaHostAlloc:portable+mapped",
                                           "cudaHostRegister:mapped"}));
    EXPECT_EQ(j.at("size_bytes"), (nlohmann::json{64 * MiB, GiB + GiB / 2, 512'000, 4096}));
    EXPECT_EQ(j.at("count"), (nlohmann::json{1, 64}));
    EXPECT_EQ(j.at("gpus"), (nlohmann::json{1, 2}));
    EXPECT_EQ(j.at("repeats"), 3);
    EXPECT_EQ(j.at("timeout_s"), 2.5);
    EXPECT_EQ(j.at("driver_models"), (nlohmann::json{"WDDM", "TCC", "MCDM", "linux"}));
    EXPECT_EQ(j.at("expect").at("linux").at("max_overhead_bytes"), 4 * MiB);
    EXPECT_EQ(j.at("params"), nlohmann::json::object());
    EXPECT_EQ(j.at("where").at("file"), kGood + "full.yaml");
    EXPECT_EQ(j.at("where").at("line"), 10);
    EXPECT_EQ(j.at("where").at("column"), 5);
}

TEST(ScenarioFile, ToJsonCarriesTheParams) {
    const ScenarioFile f = load_scenario_file(kGood + "kinds.yaml", unknown_metric_reason);
    const nlohmann::json j = to_json(f.scenarios.at(1));
    EXPECT_EQ(j.at("kind"), "capacity");
    EXPECT_EQ(j.at("params"), (nlohmann::json{{"free_target", 8 * GiB}, {"resolution", 2 * MiB}}));
}

// ---- scenario kinds (format version 2, docs/kinds.md) -----------------------------------

const Scenario& named(const ScenarioFile& f, const std::string& name) {
    for (const Scenario& s : f.scenarios) {
        if (s.name == name) {
            return s;
        }
    }
    throw std::logic_error("no scenario " + name);
}

TEST(ScenarioKinds, EveryKindIsReadWithItsDefaults) {
    const ScenarioFile f = load_scenario_file(kGood + "kinds.yaml", unknown_metric_reason);
    EXPECT_EQ(f.schema_version, 2);
    std::set<std::string> kinds;
    for (const Scenario& s : f.scenarios) {
        kinds.insert(s.kind);
    }
    EXPECT_EQ(kinds.size(), kind_specs().size()) << "the fixture has a scenario of every kind";

    EXPECT_EQ(named(f, "ovh").params, nlohmann::json::object());
    const Scenario& cap = named(f, "cap");
    EXPECT_EQ(cap.params, (nlohmann::json{{"free_target", 8 * GiB}, {"resolution", 2 * MiB}}));
    EXPECT_TRUE(cap.params["free_target"].is_number_integer());
    EXPECT_EQ(cap.sizes, (std::vector<std::uint64_t>{GiB, 4 * GiB}));

    // size_curve: only that mode's parameters; the run size is stop.
    const Scenario& curve = named(f, "curve");
    EXPECT_EQ(curve.params,
              (nlohmann::json{{"mode", "size_curve"}, {"start", 64 * MiB}, {"stop", GiB}, {"factor", 2.0}}));
    EXPECT_TRUE(curve.params["factor"].is_number_float());
    EXPECT_EQ(curve.sizes, std::vector<std::uint64_t>{GiB});
    EXPECT_EQ(named(f, "steps").params, (nlohmann::json{{"mode", "count_curve"}, {"max_count", 64}}));
    EXPECT_EQ(named(f, "steps").sizes, std::vector<std::uint64_t>{2 * MiB});
    const Scenario& most = named(f, "most");
    EXPECT_EQ(most.params,
              (nlohmann::json{{"mode", "max_pinnable"}, {"cap", 64 * GiB}, {"time_limit_s", 30.0}}));
    EXPECT_EQ(most.sizes, std::vector<std::uint64_t>{64 * GiB});

    // Axis parameters are lists, also when one value is given.
    EXPECT_EQ(named(f, "multi").params,
              (nlohmann::json{{"order", {"before", "after"}}, {"peer_access", {"on"}}}));
    EXPECT_EQ(named(f, "loader").params,
              (nlohmann::json{
                  {"workers", {0, 4}}, {"variant", {"per_process", "framework"}}, {"prefetch_factor", 4}}));
    EXPECT_EQ(named(f, "churn").params,
              (nlohmann::json{{"cycles", 10}, {"settle", {"immediate", "settled"}}, {"final_wait_s", 2.0}}));
    EXPECT_EQ(named(f, "frag").params, (nlohmann::json{{"cycles", 5}, {"resolution", MiB}}));
    EXPECT_EQ(named(f, "shm").params,
              (nlohmann::json{{"processes", {1, 2}}, {"variant", {"shared", "private"}}}));
    EXPECT_EQ(named(f, "window").params, (nlohmann::json{{"transfers", 16}}));
    EXPECT_EQ(named(f, "mine").params,
              (nlohmann::json{{"command", {"python3", "train.py", "--workers", "{variant}"}},
                              {"variant", {0, 4}},
                              {"environment", nlohmann::json::array()},
                              {"timeout_s", 600.0},
                              {"stack", 0}}));
}

TEST(ScenarioKinds, DefaultsMayHoldKindAndParams) {
    const ScenarioFile f = parse_scenario_text(
        "schema_version: 2\n"
        "defaults:\n"
        "  kind: churn\n"
        "  size: 64MiB\n"
        "  params: {cycles: 3, settle: settled}\n"
        "scenarios:\n"
        "  - {name: a, api: cudaMallocHost}\n"
        "  - {name: b, api: cudaMallocHost, params: {cycles: 4}}\n"
        "  - {name: c, kind: sweep, api: cudaMallocHost, params: {mode: max_pinnable, cap: 8GiB}}\n",
        "mem.yaml", unknown_metric_reason);
    ASSERT_EQ(f.scenarios.size(), 3u);
    EXPECT_EQ(f.scenarios[0].params,
              (nlohmann::json{{"cycles", 3}, {"settle", {"settled"}}, {"final_wait_s", 2.0}}));
    // A scenario's own params replace the default block as a whole.
    EXPECT_EQ(f.scenarios[1].params,
              (nlohmann::json{{"cycles", 4}, {"settle", {"immediate", "settled"}}, {"final_wait_s", 2.0}}));
    // An inherited size gives way to the sweep's cap.
    EXPECT_EQ(f.scenarios[2].sizes, std::vector<std::uint64_t>{8 * GiB});
}

TEST(ScenarioKinds, DefaultParamsAreCheckedAgainstEachScenariosKind) {
    const std::string text =
        "schema_version: 2\n"
        "defaults:\n"
        "  params: {cycles: 3}\n"
        "scenarios:\n"
        "  - {name: a, kind: churn, api: cudaMallocHost, size: 1MiB}\n"
        "  - {name: b, kind: capacity, api: cudaMallocHost, size: 1MiB}\n";
    EXPECT_EQ(location_of(text), "3:12");  // the cycles key in defaults, for scenario b
}

TEST(ScenarioKinds, VersionOneFilesStillLoad) {
    const ScenarioFile f = load_scenario_file(
        std::string(PINBENCH_FIXTURES) + "/scenarios/good/version1.yaml", unknown_metric_reason);
    EXPECT_EQ(f.schema_version, 1);
    for (const Scenario& s : f.scenarios) {
        EXPECT_EQ(s.params, nlohmann::json::object());
    }
}

TEST(ScenarioKinds, NumbersAndSizesOfEveryShapeAreAccepted) {
    const ScenarioFile f = parse_scenario_text(
        "schema_version: 2\n"
        "scenarios:\n"
        "  - name: a\n"
        "    kind: churn\n"
        "    api: cudaMallocHost\n"
        "    size: 1MiB\n"
        "    params: {cycles: 1, final_wait_s: 0, settle: immediate}\n"
        "  - name: b\n"
        "    kind: sweep\n"
        "    api: cudaMallocHost\n"
        "    params: {mode: size_curve, start: 1MiB, stop: 1MiB, step: '512 KiB'}\n"
        "  - name: c\n"
        "    kind: workers\n"
        "    api: cudaMallocHost\n"
        "    size: 1MiB\n"
        "    params: {workers: 0, variant: framework}\n",
        "mem.yaml", unknown_metric_reason);
    EXPECT_EQ(f.scenarios[0].params["final_wait_s"], 0.0);
    EXPECT_EQ(f.scenarios[1].params["step"], 512 * 1024);
    EXPECT_EQ(f.scenarios[1].sizes, std::vector<std::uint64_t>{MiB});
    EXPECT_EQ(f.scenarios[2].params,
              (nlohmann::json{{"workers", {0}}, {"variant", {"framework"}}, {"prefetch_factor", 2}}));
}

// docs/kinds.md is the contract: every "## kind" section names exactly the table's parameters.
TEST(ScenarioKinds, TableMatchesDocsKinds) {
    const std::string doc = read_text(std::string(PINBENCH_SOURCE_DIR) + "/docs/kinds.md");
    ASSERT_FALSE(doc.empty());
    std::map<std::string, std::vector<std::string>> documented;  // kind -> params, in order
    std::vector<std::string> order;
    std::istringstream lines(doc);
    std::string line;
    std::string kind;
    const std::regex heading(R"(^## ([a-z_]+)( .*)?$)");
    const std::regex name(R"(`([a-z_]+)`)");
    while (std::getline(lines, line)) {
        std::smatch m;
        if (std::regex_match(line, m, heading)) {
            kind = m[1];
            order.push_back(kind);
            documented[kind];
        } else if (!kind.empty() && line.rfind("| `", 0) == 0) {
            const std::string cell = line.substr(1, line.find('|', 1) - 1);
            for (auto it = std::sregex_iterator(cell.begin(), cell.end(), name); it != std::sregex_iterator();
                 ++it) {
                documented[kind].push_back((*it)[1]);
            }
        }
    }
    std::vector<std::string> table_order;
    for (const KindSpec& k : kind_specs()) {
        SCOPED_TRACE(std::string(k.name));
        table_order.emplace_back(k.name);
        std::vector<std::string> params;
        for (const ParamSpec& p : k.params) {
            params.emplace_back(p.name);
        }
        EXPECT_EQ(documented[std::string(k.name)], params);
    }
    EXPECT_EQ(order, table_order);
}

// The duplicate-key check scanned every earlier key (80k keys: 15 s). Told by how the
// time grows: 40k keys with a duplicate at the end against 10k, four times the keys: about 4
// times the time when linear, about 16 with the scan. Not a bound on the wall clock, which a
// loaded machine passed (80k keys: 5.3 s against 5 under Wine at load 13), nor a ratio to a
// parse that stops early (a syntax error at the end: 4.4 times under Wine once the YAML reader
// also counted the expanded document): load and the reader's own work scale both sizes alike.
// Each the fastest of three tries, interleaved.
TEST(ScenarioFile, DuplicateKeyCheckIsLinear) {
    const auto text_of = [](int keys) {
        std::ostringstream text;
        text << "schema_version: 2\nscenarios:\n  - name: a\n    kind: overhead\n    api: pageable\n"
             << "    size: 64MiB\n    params:\n";
        for (int i = 0; i < keys; ++i) text << "      k" << i << ": 1\n";
        return text.str() + "      k0: 2\n";
    };
    const auto parse_time = [](const std::string& yaml, int keys) {
        const std::string error = "many.yaml:" + std::to_string(keys + 8) + ":7: duplicate key 'k0'";
        const auto start = std::chrono::steady_clock::now();
        try {
            parse_scenario_text(yaml, "many.yaml", unknown_metric_reason);
            ADD_FAILURE() << "accepted";
        } catch (const InputError& e) {
            EXPECT_EQ(std::string(e.what()).substr(0, error.size()), error);
        }
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    constexpr int kSmall = 10000, kLarge = 40000;
    const std::string small = text_of(kSmall), large = text_of(kLarge);
    double t_small = 1e9, t_large = 1e9;
    for (int round = 0; round < 3; ++round) {
        t_small = std::min(t_small, parse_time(small, kSmall));
        t_large = std::min(t_large, parse_time(large, kLarge));
    }
    EXPECT_LT(t_large, 8 * t_small) << kLarge << " keys: " << t_large << " s; " << kSmall
                                    << " keys: " << t_small
                                    << " s (linear: about 4 times, the scan: about 16)";
}

// The sizes a size_curve measures: the parser's limit and the kind's loop are one function.
TEST(ScenarioFile, SizeCurveSizes) {
    EXPECT_EQ(size_curve_sizes(64, 256, 64, 0, 100), (std::vector<std::uint64_t>{64, 128, 192, 256}));
    EXPECT_EQ(size_curve_sizes(64, 300, 0, 2.0, 100), (std::vector<std::uint64_t>{64, 128, 256}));
    EXPECT_EQ(size_curve_sizes(1, 1000000, 1, 0, 4097).size(), 4097u);
    // no overflow near the top of the range
    const std::uint64_t top = std::numeric_limits<std::uint64_t>::max();
    EXPECT_EQ(size_curve_sizes(top - 1, top, 4, 0, 10), (std::vector<std::uint64_t>{top - 1}));
    EXPECT_EQ(size_curve_sizes(top / 2 + 1, top, 0, 3.0, 10), (std::vector<std::uint64_t>{top / 2 + 1}));
}

}  // namespace
}  // namespace pinbench
