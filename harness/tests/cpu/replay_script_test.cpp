// Replay scripts: parsing (with FILE:LINE:COL errors), globbing, injections, relabelling, and
// transforms whose effect on recomputed metrics is exactly the one the script asks for.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pinbench/replay/replay_script.hpp"
#include "pinbench/results/run_metrics.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

constexpr std::int64_t MiB = 1LL << 20;
constexpr std::int64_t GiB = 1LL << 30;
const std::string fixtures = std::string(PINBENCH_FIXTURES) + "/replay/";
const std::string run_id = "quick-overhead/cudaMallocHost/64MiB/x1/g1";

ReplayScript parse(const std::string& body) {
    return parse_replay_script("replay_script_version: 1\n" + body, "script.yaml");
}

// ---- parsing ---------------------------------------------------------------------------------

TEST(ReplayScriptParse, TheDocumentedExample) {
    const ReplayScript s = load_replay_script(fixtures + "wddm_example.yaml");
    EXPECT_EQ(s.path, fixtures + "wddm_example.yaml");
    EXPECT_EQ(s.driver_release, "581.42");
    EXPECT_EQ(s.driver_model, "WDDM");
    ASSERT_EQ(s.transforms.size(), 2u);
    EXPECT_EQ(s.transforms[0].op, ReplayTransform::Op::offset);
    EXPECT_EQ(s.transforms[0].runs, "quick-overhead/cudaMallocHost/*");
    EXPECT_EQ(s.transforms[0].probe, "cuda.free");
    EXPECT_EQ(s.transforms[0].value, 8.0 * MiB);
    EXPECT_EQ(s.transforms[1].op, ReplayTransform::Op::scale);
    EXPECT_EQ(s.transforms[1].probe, "alloc");
    EXPECT_EQ(s.transforms[1].value, 1.5);
    ASSERT_EQ(s.injections.size(), 2u);
    EXPECT_EQ(s.injections[0].what, ReplayInjection::What::crash);
    EXPECT_EQ(s.injections[0].repeat, 2);
    EXPECT_EQ(s.injections[1].what, ReplayInjection::What::hang);
    EXPECT_EQ(s.injections[1].repeat, -1);
}

TEST(ReplayScriptParse, OnlyTheVersionIsRequired) {
    const ReplayScript s = parse("");
    EXPECT_FALSE(s.driver_release);
    EXPECT_FALSE(s.driver_model);
    EXPECT_TRUE(s.transforms.empty());
    EXPECT_TRUE(s.injections.empty());
}

TEST(ReplayScriptParse, ByteValues) {
    const auto value = [](const std::string& bytes) {
        return parse("transforms:\n  - {op: offset, runs: '*', probe: cuda.free, bytes: " + bytes + "}\n")
            .transforms.at(0)
            .value;
    };
    EXPECT_EQ(value("8MiB"), 8.0 * MiB);
    EXPECT_EQ(value("-8MiB"), -8.0 * MiB);
    EXPECT_EQ(value("-1048576"), -1.0 * MiB);
    EXPECT_EQ(value("4096"), 4096.0);
    EXPECT_EQ(value("'1 GiB'"), 1.0 * GiB);
    const ReplayTransform ms =
        parse("transforms:\n  - {op: offset, runs: '*', probe: first_use, ms: -0.25}\n").transforms.at(0);
    EXPECT_EQ(ms.value, -0.25);
}

TEST(ReplayScriptParse, LoadNamesTheFileInErrors) {
    try {
        load_replay_script(fixtures + "bad_version.yaml");
        FAIL() << "accepted version 2";
    } catch (const InputError& e) {
        EXPECT_EQ(std::string(e.what()), fixtures +
                                             "bad_version.yaml:2:24: replay_script_version 2 is not "
                                             "supported (this build reads version 1)");
    }
}

struct BadScript {
    const char* text;
    const char* error;  // the whole message, or its start when it ends with "..."
};

const std::vector<BadScript> bad_scripts = {
    {"", "bad.yaml:1:1: empty replay script (expected a mapping with replay_script_version)"},
    {"- 1\n", "bad.yaml:1:1: replay script: expected a mapping"},
    {"transforms: []\n", "bad.yaml:1:1: replay script: missing required key 'replay_script_version'"},
    {"replay_script_version: 2\n",
     "bad.yaml:1:24: replay_script_version 2 is not supported (this build reads version 1)"},
    {"replay_script_version: one\n", "bad.yaml:1:24: replay_script_version: expected an integer"},
    {"replay_script_version: 1\nrelable: {}\n",
     "bad.yaml:2:1: unknown key 'relable' in replay script (expected replay_script_version, relabel, "
     "transforms, "
     "inject)"},
    {"replay_script_version: 1\nreplay_script_version: 1\n",
     "bad.yaml:2:1: duplicate key 'replay_script_version' in replay script"},
    {"replay_script_version: 1\nrelabel:\n  driver_model: wddm\n",
     "bad.yaml:3:17: unknown driver_model 'wddm' (expected WDDM, TCC, MCDM or linux)"},
    {"replay_script_version: 1\nrelabel:\n  driver: 581.42\n",
     "bad.yaml:3:3: unknown key 'driver' in relabel (expected driver_release, driver_model)"},
    {"replay_script_version: 1\ntransforms: {op: offset}\n", "bad.yaml:2:13: transforms: expected a list"},
    {"replay_script_version: 1\ntransforms:\n", "bad.yaml:2:1: transforms: expected a list"},
    {"replay_script_version: 1\nrelabel:\n", "bad.yaml:2:1: relabel: expected a mapping"},
    {"replay_script_version: 1\ntransforms:\n  - op: shift\n    runs: 'a/*'\n    probe: cuda.free\n    "
     "bytes: 1MiB\n",
     "bad.yaml:3:9: unknown op 'shift' (expected offset, scale or set)"},
    {"replay_script_version: 1\ntransforms:\n  - op: offset\n    probe: cuda.free\n    bytes: 1MiB\n",
     "bad.yaml:3:5: transform: missing required key 'runs'"},
    {"replay_script_version: 1\ntransforms:\n  - op: offset\n    runs: '*'\n    prob: cuda.free\n",
     "bad.yaml:5:5: unknown key 'prob' in transform (expected op, runs, probe, bytes, ms, factor, data)"},
    {"replay_script_version: 1\ntransforms:\n  - op: set\n    runs: '*'\n    probe: cuda.free\n"
     "    data: {max_pinnable: 1GiB}\n",
     "bad.yaml:5:5: op set takes data (repeat data fields), not probe"},
    {"replay_script_version: 1\ntransforms:\n  - op: set\n    runs: '*'\n",
     "bad.yaml:3:5: transform: missing required key 'data'"},
    {"replay_script_version: 1\ntransforms:\n  - op: set\n    runs: '*'\n    data: {max_pinnable: -1GiB}\n",
     "bad.yaml:5:26: data.max_pinnable: a size must not be negative"},
    {"replay_script_version: 1\ntransforms:\n  - op: offset\n    runs: '*'\n    probe: cuda.free\n"
     "    bytes: 1MiB\n    data: {a: 1}\n",
     "bad.yaml:7:5: data is for op set"},
    {"replay_script_version: 1\ntransforms:\n  - op: offset\n    runs: '*'\n    probe: cuda.free\n",
     "bad.yaml:3:5: transform: missing required key 'bytes'"},
    {"replay_script_version: 1\ntransforms:\n  - op: offset\n    runs: '*'\n    probe: alloc\n    bytes: "
     "1MiB\n",
     "bad.yaml:6:5: bytes offsets a probe key; 'alloc' is a timing (use ms)"},
    {"replay_script_version: 1\ntransforms:\n  - op: offset\n    runs: '*'\n    probe: cuda.free\n    ms: "
     "1.5\n",
     "bad.yaml:6:5: ms offsets a timing; 'cuda.free' is a probe key (use bytes)"},
    {"replay_script_version: 1\ntransforms:\n  - op: offset\n    runs: '*'\n    probe: cuda.free\n    "
     "factor: 2\n",
     "bad.yaml:6:5: factor is for op scale; op offset takes bytes or ms"},
    {"replay_script_version: 1\ntransforms:\n  - op: scale\n    runs: '*'\n    probe: cuda.free\n    factor: "
     "-0.5\n",
     "bad.yaml:6:13: factor must not be negative"},
    {"replay_script_version: 1\ntransforms:\n  - op: scale\n    runs: '*'\n    probe: cuda.free\n    bytes: "
     "1MiB\n",
     "bad.yaml:6:5: bytes is for op offset; op scale takes factor"},
    {"replay_script_version: 1\ntransforms:\n  - op: scale\n    runs: '*'\n    probe: cuda.free\n    factor: "
     ".nan\n",
     "bad.yaml:6:13: factor: expected a finite number"},
    {"replay_script_version: 1\ntransforms:\n  - op: offset\n    runs: '*'\n    probe: cuda.free\n"
     "    bytes: 8 lightyears\n",
     "bad.yaml:6:12: bytes: ..."},
    {"replay_script_version: 1\ntransforms:\n  - op: offset\n    runs: '*'\n    probe: cuda.total\n    "
     "bytes: 1MiB\n",
     "bad.yaml:5:12: probe 'cuda.total' is a capacity (total or budget): it has no cost to transform"},
    {"replay_script_version: 1\ntransforms:\n  - op: offset\n    runs: '*'\n    probe: alloc_ms\n    ms: 1\n",
     "bad.yaml:5:12: unknown timing 'alloc_ms' (expected alloc, free, first_use or context; a probe key "
     "contains '.')"},
    {"replay_script_version: 1\ntransforms:\n  - op: offset\n    runs: ''\n    probe: cuda.free\n    bytes: "
     "1MiB\n",
     "bad.yaml:4:11: runs: expected a non-empty string"},
    {"replay_script_version: 1\ninject:\n  - what: explode\n    runs: '*'\n",
     "bad.yaml:3:11: unknown injection 'explode' (expected crash, hang, cuda_error, disturbance or slow)"},
    {"replay_script_version: 1\ninject:\n  - what: crash\n",
     "bad.yaml:3:5: inject entry: missing required key 'runs'"},
    {"replay_script_version: 1\ninject:\n  - what: crash\n    runs: '*'\n    repeat: -1\n",
     "bad.yaml:5:13: repeat must be a repeat index >= 0"},
};

// op set replaces data fields the repeat has (sizes and booleans) and never invents one.
TEST(ReplayScriptApply, SetReplacesOnlyExistingDataFields) {
    const ReplayScript script = parse(
        "transforms:\n  - op: set\n    runs: 'p/*'\n"
        "    data: {max_pinnable: 1536MiB, capped: false, free_before: 804MiB, invented: 1}\n");
    ASSERT_EQ(script.transforms.size(), 1u);
    RepeatRecord r;
    r.data = {{"max_pinnable", 8589934592ull}, {"capped", true}, {"free_before", 1073741824ull}};
    apply_transforms(script, "p/cudaMallocHost/8GiB/x1/g1", r);
    EXPECT_EQ(r.data["max_pinnable"], 1536ull << 20);
    EXPECT_EQ(r.data["capped"], false);
    EXPECT_EQ(r.data["free_before"], 804ull << 20);
    EXPECT_FALSE(r.data.contains("invented"));
    RepeatRecord other;
    other.data = {{"max_pinnable", 1}};
    apply_transforms(script, "q/x", other);
    EXPECT_EQ(other.data["max_pinnable"], 1) << "the glob did not match";
}

TEST(ReplayScriptParse, BadScriptsSayWhereAndWhy) {
    for (const BadScript& bad : bad_scripts) {
        std::string what = "no error";
        try {
            parse_replay_script(bad.text, "bad.yaml");
        } catch (const InputError& e) {
            what = e.what();
        }
        std::string expected = bad.error;
        if (expected.ends_with("...")) {
            expected.resize(expected.size() - 3);
            EXPECT_EQ(what.substr(0, expected.size()), expected) << bad.text;
        } else {
            EXPECT_EQ(what, expected) << bad.text;
        }
    }
}

TEST(ReplayScriptParse, YamlSyntaxErrorsHaveAPosition) {
    try {
        parse_replay_script("replay_script_version: 1\ntransforms: [\n", "bad.yaml");
        FAIL() << "accepted an unterminated list";
    } catch (const InputError& e) {
        EXPECT_EQ(e.file(), "bad.yaml");
        EXPECT_GE(e.line(), 2) << e.what();
        EXPECT_GE(e.column(), 1) << e.what();
    }
}

// ---- globbing and injections -----------------------------------------------------------------

TEST(GlobMatch, StarAndQuestionMark) {
    EXPECT_TRUE(glob_match("quick/*", "quick/cudaMallocHost/64MiB/x1/g1"));  // '*' crosses '/'
    EXPECT_TRUE(glob_match("*", ""));
    EXPECT_TRUE(glob_match("", ""));
    EXPECT_FALSE(glob_match("", "a"));
    EXPECT_TRUE(glob_match("a?c", "abc"));
    EXPECT_FALSE(glob_match("a?c", "ac"));
    EXPECT_TRUE(glob_match("a*b*c", "axxbyyc"));
    EXPECT_FALSE(glob_match("a*b*c", "axxbyy"));
    EXPECT_TRUE(glob_match("*/64MiB/*", "quick/pageable/64MiB/x1/g1"));
    EXPECT_FALSE(glob_match("*/64MiB/*", "quick/pageable/640MiB/x1/g1"));
    EXPECT_TRUE(glob_match("*g1", "quick/pageable/64MiB/x1/g1"));
    EXPECT_FALSE(glob_match("quick", "quick-overhead"));
    EXPECT_TRUE(glob_match("**a", "bba"));
}

TEST(InjectionFor, FirstMatchWins) {
    const ReplayScript s = load_replay_script(fixtures + "wddm_example.yaml");
    const auto at = [&](const std::string& id, int repeat) { return injection_for(s, id, repeat); };
    ASSERT_TRUE(at("quick-overhead/pageable/64MiB/x1/g1", 2));
    EXPECT_EQ(at("quick-overhead/pageable/64MiB/x1/g1", 2)->what, ReplayInjection::What::crash);
    ASSERT_TRUE(at("quick-overhead/pageable/64MiB/x1/g1", 1));
    EXPECT_EQ(at("quick-overhead/pageable/64MiB/x1/g1", 1)->what, ReplayInjection::What::hang);
    EXPECT_EQ(at("quick-overhead/pageable/1GiB/x1/g1", 2)->what, ReplayInjection::What::hang);
    EXPECT_FALSE(at(run_id, 2));
}

// ---- relabelling ------------------------------------------------------------------------------

TEST(RelabelEnvironment, DriverAndEveryDevice) {
    const ReplayScript s = load_replay_script(fixtures + "wddm_example.yaml");
    const nlohmann::json env = {
        {"driver", {{"release", "580.65.06"}, {"cuda_version", 13000}}},
        {"devices",
         {{{"name", "A"}, {"driver_model", {{"current", "linux"}, {"pending", "linux"}}}}, {{"name", "B"}}}},
    };
    const nlohmann::json out = relabel_environment(s, env);
    EXPECT_EQ(out["driver"]["release"], "581.42");
    EXPECT_EQ(out["driver"]["cuda_version"], 13000);
    for (const auto& d : out["devices"]) {
        EXPECT_EQ(d["driver_model"]["current"], "WDDM");
        EXPECT_EQ(d["driver_model"]["pending"], "WDDM");
    }
    EXPECT_EQ(out["devices"][1]["name"], "B");
    EXPECT_EQ(out["replayed"], true);
}

TEST(RelabelEnvironment, NothingToRelabelStillMarksReplayed) {
    const nlohmann::json env = {{"driver", {{"release", "580.65.06"}}}};
    const nlohmann::json out = relabel_environment(parse(""), env);
    EXPECT_EQ(out["driver"]["release"], "580.65.06");
    EXPECT_EQ(out["replayed"], true);
}

// ---- transforms: the metrics recomputed afterwards move by exactly the requested amount --------

Snapshot snap(const std::string& label, std::int64_t free, std::int64_t used, Reading dxgi) {
    Snapshot s;
    s.label = label;
    s.readings["cuda.free"] = Reading::of(free);
    s.readings["cuda.total"] = Reading::of(24 * GiB);
    s.readings["nvml.0.used"] = Reading::of(used);
    s.readings["dxgi.local.usage"] = std::move(dxgi);
    return s;
}

// cuda.free costs per repeat: alloc 2/4/6 MiB, first use 10/14/12 MiB, after free 0/2/0 MiB.
// nvml.0.used: +20/+24/+30 MiB at first use. dxgi.local.usage is unavailable in repeat 1 at first use.
RunRecord sample_run() {
    RunRecord run;
    run.run.id = run_id;
    const std::int64_t alloc[] = {2, 4, 6}, first_use[] = {10, 14, 12}, freed[] = {0, 2, 0},
                       used[] = {20, 24, 30};
    const double alloc_ms[] = {1.0, 3.0, 2.0};
    for (int i = 0; i < 3; ++i) {
        RepeatRecord r;
        r.index = i;
        const std::int64_t f = 20 * GiB, u = GiB;
        r.snapshots = {
            snap("after_context", f, u, Reading::of(500 * MiB)),
            snap("after_alloc", f - alloc[i] * MiB, u, Reading::of(501 * MiB)),
            snap("after_first_use", f - first_use[i] * MiB, u + used[i] * MiB,
                 i == 1 ? Reading::not_available("query failed") : Reading::of(503 * MiB)),
            snap("after_free", f - freed[i] * MiB, u, Reading::of(500 * MiB)),
        };
        r.timings_ms = {{"alloc", alloc_ms[i]}, {"free", 0.5}};
        run.repeats.push_back(r);
    }
    return run;
}

std::map<std::string, MetricSummary> transformed_metrics(const std::string& body,
                                                         const std::string& id = run_id) {
    const ReplayScript s = parse(body);
    RunRecord run = sample_run();
    for (auto& r : run.repeats) apply_transforms(s, id, r);
    return compute_run_metrics(run, {});
}

double median_of(const std::map<std::string, MetricSummary>& m, const std::string& name) {
    return m.at(name).stats.median;
}

TEST(ApplyTransforms, OffsetOnAnAvailableKeyAddsExactlyTheCost) {
    const auto before = compute_run_metrics(sample_run(), {});
    const auto after = transformed_metrics(
        "transforms:\n  - {op: offset, runs: 'quick-overhead/cudaMallocHost/*', probe: cuda.free, bytes: "
        "8MiB}\n");
    EXPECT_EQ(median_of(before, "cost.after_first_use.cuda.free"), 12.0 * MiB);
    EXPECT_EQ(median_of(after, "cost.after_first_use.cuda.free"), 20.0 * MiB);
    EXPECT_EQ(after.at("cost.after_first_use.cuda.free").stats.min, 18.0 * MiB);
    EXPECT_EQ(after.at("cost.after_first_use.cuda.free").stats.mad, 2.0 * MiB);  // spread unchanged
    EXPECT_EQ(median_of(after, "cost.after_alloc.cuda.free"), 12.0 * MiB);
    // Freeing releases what was added: the residual and every other key are untouched.
    EXPECT_EQ(median_of(after, "residual.after_free.cuda.free"),
              median_of(before, "residual.after_free.cuda.free"));
    EXPECT_EQ(after.at("residual.after_free.cuda.free").stats.max, 2.0 * MiB);
    EXPECT_EQ(median_of(after, "cost.after_first_use.nvml.0.used"),
              median_of(before, "cost.after_first_use.nvml.0.used"));
}

TEST(ApplyTransforms, OffsetOnAUsageKeyRaisesTheReading) {
    const auto after =
        transformed_metrics("transforms:\n  - {op: offset, runs: '*', probe: nvml.0.used, bytes: -4MiB}\n");
    // first use: 20, 24, 30 MiB, each minus 4 -> median 20.
    EXPECT_EQ(median_of(after, "cost.after_first_use.nvml.0.used"), 20.0 * MiB);
    EXPECT_EQ(median_of(after, "cost.after_alloc.nvml.0.used"), -4.0 * MiB);
    EXPECT_EQ(median_of(after, "residual.after_free.nvml.0.used"), 0.0);
}

TEST(ApplyTransforms, ScaleMultipliesTheCost) {
    const auto after =
        transformed_metrics("transforms:\n  - {op: scale, runs: '*', probe: cuda.free, factor: 1.5}\n");
    // first use 10, 14, 12 -> 15, 21, 18 MiB; alloc 2, 4, 6 -> 3, 6, 9 MiB.
    EXPECT_EQ(median_of(after, "cost.after_first_use.cuda.free"), 18.0 * MiB);
    EXPECT_EQ(after.at("cost.after_first_use.cuda.free").stats.max, 21.0 * MiB);
    EXPECT_EQ(median_of(after, "cost.after_alloc.cuda.free"), 6.0 * MiB);
    EXPECT_EQ(after.at("residual.after_free.cuda.free").stats.max, 2.0 * MiB);

    const auto zero =
        transformed_metrics("transforms:\n  - {op: scale, runs: '*', probe: cuda.free, factor: 0}\n");
    EXPECT_EQ(zero.at("cost.after_first_use.cuda.free").stats.max, 0.0);
}

TEST(ApplyTransforms, UnavailableReadingsStayUnavailable) {
    const ReplayScript s =
        parse("transforms:\n  - {op: offset, runs: '*', probe: dxgi.local.usage, bytes: 1MiB}\n");
    RunRecord run = sample_run();
    for (auto& r : run.repeats) apply_transforms(s, run_id, r);
    EXPECT_EQ(run.repeats[1].snapshots[2].readings.at("dxgi.local.usage"),
              Reading::not_available("query failed"));
    EXPECT_EQ(run.repeats[0].snapshots[2].readings.at("dxgi.local.usage"), Reading::of(504 * MiB));
    EXPECT_EQ(run.repeats[0].snapshots[0].readings.at("dxgi.local.usage"), Reading::of(500 * MiB));
    const auto m = compute_run_metrics(run, {});
    EXPECT_EQ(m.count("cost.after_first_use.dxgi.local.usage"), 0u);
    EXPECT_EQ(median_of(m, "cost.after_alloc.dxgi.local.usage"), 2.0 * MiB);
}

TEST(ApplyTransforms, Timings) {
    const auto after = transformed_metrics(
        "transforms:\n"
        "  - {op: scale, runs: '*', probe: alloc, factor: 1.5}\n"
        "  - {op: offset, runs: '*', probe: free, ms: 0.25}\n"
        "  - {op: offset, runs: '*', probe: first_use, ms: 9}\n");
    EXPECT_EQ(median_of(after, "time.alloc_ms"), 3.0);  // 1, 3, 2 ms x 1.5 -> median 3
    EXPECT_EQ(median_of(after, "time.free_ms"), 0.75);
    EXPECT_EQ(after.count("time.first_use_ms"), 0u);  // never measured: not created
}

TEST(ApplyTransforms, OtherRunsAreUntouched) {
    const std::string body =
        "transforms:\n  - {op: offset, runs: 'quick-overhead/pageable/*', probe: cuda.free, "
        "bytes: 8MiB}\n";
    EXPECT_EQ(median_of(transformed_metrics(body), "cost.after_first_use.cuda.free"), 12.0 * MiB);
    EXPECT_EQ(median_of(transformed_metrics(body, "quick-overhead/pageable/64MiB/x1/g1"),
                        "cost.after_first_use.cuda.free"),
              20.0 * MiB);
}

}  // namespace
}  // namespace pinbench
