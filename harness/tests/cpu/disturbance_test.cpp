// The disturbance judgement (run/disturbance.hpp) on hand-made watch traces, the CUDA-to-NVML
// device matching on a reordered two-device fixture, and the whole path end to end through the
// replay backend: an injected neighbour is detected, retried, ends `disturbed` when it stays,
// and a transient one ends `ok` with the quiet values.
#include <gtest/gtest.h>

#include <filesystem>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/probes/device_map.hpp"
#include "pinbench/results/results.hpp"
#include "run/disturbance.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;
constexpr std::int64_t MiB = std::int64_t{1} << 20;
constexpr std::int64_t s_ns = 1'000'000'000;

WatchSample sample(std::int64_t t, std::int64_t used, std::vector<GpuProcessUse> procs) {
    return {t, t - 10'000'000, {used}, std::move(procs)};  // the read before came 10 ms earlier
}

WatchTrace trace_of(std::vector<WatchSample> samples) {
    WatchTrace t;
    t.devices = {0};
    for (auto& s : samples) append_if_changed(t, std::move(s));
    return t;
}

AttemptWindow window(std::int64_t begin, std::int64_t end, std::set<std::uint32_t> own) {
    AttemptWindow w;
    w.begin_ns = begin;
    w.end_ns = end;
    w.own_pids = std::move(own);
    return w;
}

TEST(Disturbance, AQuietWindowWithOurOwnProcessIsClean) {
    // The child (pid 10) appears, allocates and leaves: that is the measurement itself.
    const auto t =
        trace_of({sample(0, 500 * MiB, {}), sample(1 * s_ns, 1100 * MiB, {{10, 0, 600 * MiB}}),
                  sample(2 * s_ns, 1108 * MiB, {{10, 0, 600 * MiB}}), sample(3 * s_ns, 500 * MiB, {})});
    const Disturbance d = judge_attempt(t, window(0, 4 * s_ns, {10}), 2 * MiB);
    EXPECT_FALSE(d.any()) << d.evidence.front().text;
}

TEST(Disturbance, ASteadyNeighbourIsNoDisturbance) {
    const GpuProcessUse steady{77, 0, 20480 * MiB};
    const auto t = trace_of({sample(0, 21000 * MiB, {steady}),
                             sample(1 * s_ns, 21600 * MiB, {{10, 0, 600 * MiB}, steady}),
                             sample(3 * s_ns, 21000 * MiB, {steady})});
    EXPECT_FALSE(judge_attempt(t, window(0, 4 * s_ns, {10}), 2 * MiB).any());
}

TEST(Disturbance, ANeighbourThatChangesItsMemoryIsNamedWithTheBytes) {
    const auto t = trace_of(
        {sample(0, 1000 * MiB, {{77, 0, 100 * MiB}}), sample(s_ns / 2, 1256 * MiB, {{77, 0, 356 * MiB}})});
    WatchTrace named = t;
    named.names[77] = "python3";
    const Disturbance d = judge_attempt(named, window(0, s_ns, {10}), 2 * MiB);
    ASSERT_EQ(d.evidence.size(), 1u);
    EXPECT_EQ(d.evidence[0].what, "process_memory");
    EXPECT_EQ(d.evidence[0].pid, 77u);
    EXPECT_EQ(d.evidence[0].bytes, 256 * MiB);
    EXPECT_EQ(d.evidence[0].text, "pid 77 (python3) changed its memory on GPU 0 by +256 MiB at +0.500 s");
    EXPECT_TRUE(d.devices.contains(0));
}

TEST(Disturbance, AppearingAndLeavingNeighboursCount) {
    const auto t = trace_of({sample(0, 1000 * MiB, {}), sample(s_ns, 1500 * MiB, {{88, 0, 500 * MiB}}),
                             sample(2 * s_ns, 1000 * MiB, {})});
    const Disturbance d = judge_attempt(t, window(0, 3 * s_ns, {10}), 2 * MiB);
    ASSERT_EQ(d.evidence.size(), 2u);
    EXPECT_EQ(d.evidence[0].what, "process_appeared");
    EXPECT_EQ(d.evidence[1].what, "process_left");
}

TEST(Disturbance, ChangesOutsideTheWindowDoNotCount) {
    const auto t = trace_of(
        {sample(0, 1000 * MiB, {{77, 0, 100 * MiB}}), sample(5 * s_ns, 1256 * MiB, {{77, 0, 356 * MiB}})});
    EXPECT_FALSE(judge_attempt(t, window(1 * s_ns, 4 * s_ns, {10}), 2 * MiB).any());
}

TEST(Disturbance, UsageThatMovesWhileTheChildIsIdleIsSeen) {
    // A neighbour that pins host memory moves device usage without showing in any process.
    auto w = window(0, 4 * s_ns, {10});
    w.idle.push_back({1 * s_ns, 1 * s_ns + 100, 2 * s_ns});
    const auto t = trace_of({sample(0, 1000 * MiB, {}), sample(s_ns + 500'000'000, 1008 * MiB, {})});
    const Disturbance d = judge_attempt(t, w, 2 * MiB);
    ASSERT_EQ(d.evidence.size(), 1u);
    EXPECT_EQ(d.evidence[0].what, "idle_move");
    EXPECT_EQ(d.evidence[0].bytes, 8 * MiB);
}

TEST(Disturbance, AMoveInOverlappingIdleWindowsIsOneMove) {
    // The null control's idle windows overlap; on the H200 one move was listed once per window
    // (results/h200-wsl-watch: "moved 347 times"), overstating what the busy-GPU line counts.
    auto w = window(0, 4 * s_ns, {10});
    for (int k = 0; k < 5; ++k) w.idle.push_back({1 * s_ns + k, 1 * s_ns + 100 + k, 2 * s_ns});
    const auto t = trace_of({sample(0, 1000 * MiB, {}), sample(s_ns + 500'000'000, 1008 * MiB, {})});
    const Disturbance d = judge_attempt(t, w, 2 * MiB);
    ASSERT_EQ(d.evidence.size(), 1u);
    EXPECT_EQ(d.evidence[0].what, "idle_move");
}

TEST(Disturbance, AStepOfTheChildSeenLateByThePollIsNotAnIdleMove) {
    // The child allocated just before its snapshot; the parent's next poll (5 ms into the idle
    // window) is the first to see it, while the poll before it came before the window.
    auto w = window(0, 4 * s_ns, {10});
    w.idle.push_back({1 * s_ns, 1 * s_ns, 2 * s_ns});
    WatchSample late{1 * s_ns + 5'000'000, 1 * s_ns - 5'000'000, {1256 * MiB}, {}};
    const auto t = trace_of({sample(0, 1000 * MiB, {}), late});
    EXPECT_FALSE(judge_attempt(t, w, 2 * MiB).any());
}

TEST(Disturbance, AStepOfTheChildSeenByAReadEndingAfterTheIdleWindowIsNotAnIdleMove) {
    // The read began 1 ms before the child's snapshot ended and took 20 ms (Wine's double):
    // the free the child made after its snapshot is what it saw.
    auto w = window(0, 4 * s_ns, {10});
    w.idle.push_back({1 * s_ns, 1 * s_ns, 2 * s_ns});
    WatchSample mid_read{2 * s_ns - 1'000'000, 2 * s_ns - 11'000'000, {0}, {}};
    mid_read.done_ns = 2 * s_ns + 19'000'000;
    EXPECT_FALSE(judge_attempt(trace_of({sample(0, 1 * 1024 * MiB, {}), mid_read}), w, 2 * MiB).any());
    // The same read ending inside the window saw a move while the child was idle.
    WatchSample in_window{2 * s_ns - 30'000'000, 2 * s_ns - 40'000'000, {0}, {}};
    in_window.done_ns = 2 * s_ns - 10'000'000;
    const Disturbance d = judge_attempt(trace_of({sample(0, 1 * 1024 * MiB, {}), in_window}), w, 2 * MiB);
    ASSERT_EQ(d.evidence.size(), 1u);
    EXPECT_EQ(d.evidence[0].what, "idle_move");
}

TEST(Disturbance, UsageThatDoesNotComeBackAfterTheChildIsSeen) {
    auto w = window(0, 4 * s_ns, {10});
    w.returned = false;
    w.return_gap = {8 * MiB};
    const Disturbance d = judge_attempt(trace_of({sample(0, 1000 * MiB, {})}), w, 2 * MiB);
    ASSERT_EQ(d.evidence.size(), 1u);
    EXPECT_EQ(d.evidence[0].what, "not_returned");
    w.return_gap = {2 * MiB};  // within the tolerance: nothing
    EXPECT_FALSE(judge_attempt(trace_of({sample(0, 1000 * MiB, {})}), w, 2 * MiB).any());
}

TEST(Disturbance, ACostBelowTheFirstSnapshotIsANeighboursFree) {
    Snapshot a, b;
    a.label = "after_context";
    a.readings["cuda.free"] = Reading::of(1000 * MiB);
    b.label = "after_alloc";
    b.readings["cuda.free"] = Reading::of(1300 * MiB);  // 300 MiB more free than before: -300 MiB cost
    Disturbance d;
    add_negative_costs({a, b}, {{"cuda.free", 0}}, 2 * MiB, d);
    ASSERT_EQ(d.evidence.size(), 1u);
    EXPECT_EQ(d.evidence[0].bytes, -300 * MiB);
    b.readings["cuda.free"] = Reading::of(1002 * MiB);  // one granule: noise, not a neighbour
    Disturbance quiet;
    add_negative_costs({a, b}, {{"cuda.free", 0}}, 2 * MiB, quiet);
    EXPECT_FALSE(quiet.any());
}

RepeatRecord costing(std::int64_t used_after) {
    RepeatRecord r;
    Snapshot a, b;
    a.label = "after_context";
    a.readings["nvml.0.used"] = Reading::of(1000 * MiB);
    a.readings["nvml.0.process_used"] = Reading::of(500 * MiB);
    b.label = "after_first_use";
    b.readings["nvml.0.used"] = Reading::of(used_after);
    b.readings["nvml.0.process_used"] = Reading::of(500 * MiB);
    r.snapshots = {a, b};
    return r;
}

TEST(Disturbance, ARepeatOffTheRunsMedianIsAnOutlier) {
    const RepeatRecord quiet = costing(1008 * MiB), odd = costing(1016 * MiB);
    std::vector<std::string> why;
    EXPECT_EQ(cost_outliers({&quiet, &odd, &quiet, &quiet}, {0}, 0u, 1 * MiB, &why),
              (std::vector<std::size_t>{1}));
    ASSERT_EQ(why.size(), 1u);
    EXPECT_EQ(why[0],
              "after_first_use/nvml.0.used read 8388608 B off the run's median while another process was on "
              "the GPU");
    why.clear();
    // Another GPU's keys, one step within the tolerance, or fewer than 3 repeats: none.
    EXPECT_TRUE(cost_outliers({&quiet, &odd, &quiet, &quiet}, {1}, 1u, 1 * MiB, &why).empty());
    EXPECT_TRUE(cost_outliers({&quiet, &odd, &quiet, &quiet}, {0}, 0u, 8 * MiB, &why).empty());
    EXPECT_TRUE(cost_outliers({&quiet, &odd}, {0}, 0u, 1 * MiB, &why).empty());
}

TEST(Disturbance, OnlyDeviceLevelKeysOfTheDisturbedDeviceAreMarked) {
    Disturbance d;
    d.devices = {1};
    const std::set<std::string> keys{"cuda.free",           "nvml.0.used",      "nvml.1.used",
                                     "nvml.1.process_used", "dxgi.local.usage", "pdh.process.dedicated"};
    // CUDA device 0 is NVML device 1 here (CUDA_VISIBLE_DEVICES): cuda.free belongs to it.
    EXPECT_EQ(disturbed_keys(keys, d, 1u), (std::vector<std::string>{"cuda.free", "nvml.1.used"}));
    EXPECT_EQ(disturbed_keys(keys, d, 0u), (std::vector<std::string>{"nvml.1.used"}));
}

TEST(DeviceMap, MatchesByUuidWhateverTheOrder) {
    // Two GPUs; CUDA_VISIBLE_DEVICES=GPU-bbbb,GPU-aaaa makes CUDA's order the reverse of NVML's.
    const std::vector<DeviceIdentity> nvml{{"GPU-aaaa", "00000000:00:05.0"},
                                           {"GPU-bbbb", "00000000:00:06.0"}};
    const std::vector<DeviceIdentity> cuda{{"GPU-bbbb", "0000:00:06.0"}, {"GPU-aaaa", "0000:00:05.0"}};
    EXPECT_EQ(map_cuda_to_nvml(cuda, nvml), (std::vector<std::optional<unsigned>>{1u, 0u}));
    // One GPU handed out by UUID: CUDA device 0 is NVML device 1.
    EXPECT_EQ(map_cuda_to_nvml({{"GPU-bbbb", ""}}, nvml), (std::vector<std::optional<unsigned>>{1u}));
}

TEST(DeviceMap, FallsBackToThePciBusIdAndSaysWhenNothingMatches) {
    const std::vector<DeviceIdentity> nvml{{"", "00000000:00:05.0"}, {"", "00000000:3B:00.0"}};
    EXPECT_EQ(map_cuda_to_nvml({{"GPU-x", "0000:3b:00.0"}, {"GPU-y", "0000:99:00.0"}}, nvml),
              (std::vector<std::optional<unsigned>>{1u, std::nullopt}));
    EXPECT_EQ(normalized_pci_bus_id("00000000:3B:00.0"), "0000:3b:00.0");
    EXPECT_EQ(normalized_pci_bus_id("0000:3b:00.0"), "0000:3b:00.0");
    EXPECT_EQ(normalized_pci_bus_id("not a bus id"), "");
}

// --- End to end through the replay backend (no GPU). ---------------------------------------

const std::string source = std::string(PINBENCH_SOURCE_DIR) + "/results/h200-smoke/results.json";

fs::path temp_path(const std::string& name) {
    return fs::temp_directory_path() /
           ("pinbench-disturbance-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
            "-" + name);
}

struct Replayed {
    ProcessOutcome outcome;
    ResultsDocument doc;
};

Replayed replay_with(const std::string& name, const std::string& script_text, const std::string& only,
                     const std::string& from = source) {
    const auto script = temp_path(name + ".yaml");
    const auto out = temp_path(name + ".json");
    write_file_atomically(script.string(), script_text);
    Subprocess p({PINBENCH_EXE, "run", "--backend", "replay", "--from", from, "--script", script.string(),
                  "--only", only, "--retry-wait", "0.01", "-o", out.string()},
                 {});
    Replayed r{p.wait(std::chrono::minutes(3)), {}};
    r.doc = load_results(out.string());
    return r;
}

const RunRecord& only_run(const ResultsDocument& doc) {
    if (doc.runs.size() != 1) throw std::runtime_error("expected one run");
    return doc.runs.front();
}

TEST(DisturbanceReplay, APersistentNeighbourEndsDisturbedWithEvidenceAndExit3) {
    const auto r = replay_with("persistent", R"(replay_script_version: 1
inject:
  - what: disturbance
    runs: "quick-overhead/cudaMallocHost/4GiB/*"
    bytes: 256MiB
)",
                               "quick-overhead/cudaMallocHost/4GiB/*");
    ASSERT_EQ(r.outcome.kind, ProcessOutcome::Kind::exited) << r.outcome.output;
    EXPECT_EQ(r.outcome.exit_code, 3) << r.outcome.output;
    const RunRecord& run = only_run(r.doc);
    EXPECT_EQ(run.status, Status::disturbed);
    // The first repeat is retried 3 times, then every later one gets a single attempt.
    EXPECT_EQ(run.repeats.size(), 4u + 6u);
    EXPECT_EQ(run.disturbance.at("disturbed_attempts"), 10);
    const std::string text = run.disturbance.at("evidence").at(0).at("text");
    EXPECT_NE(text.find("pid 4242"), std::string::npos) << text;
    EXPECT_NE(text.find("+256 MiB"), std::string::npos) << text;
    EXPECT_TRUE(run.metrics.empty()) << "nothing measured cleanly: no metric";
}

TEST(DisturbanceReplay, ATransientNeighbourIsRetriedAndTheRunIsOkWithTheQuietValues) {
    const auto r = replay_with("transient", R"(replay_script_version: 1
inject:
  - what: disturbance
    runs: "quick-overhead/cudaMallocHost/4GiB/*"
    repeat: 2
    attempts: 1
)",
                               "quick-overhead/cudaMallocHost/4GiB/*");
    EXPECT_EQ(r.outcome.exit_code, 0) << r.outcome.output;
    const RunRecord& run = only_run(r.doc);
    EXPECT_EQ(run.status, Status::ok);
    ASSERT_EQ(run.repeats.size(), 8u);  // 7 repeats, one of them twice
    int retried = 0;
    for (const auto& rep : run.repeats) {
        if (rep.index != 2) continue;
        EXPECT_EQ(rep.status, rep.attempt == 0 ? Status::disturbed : Status::ok);
        ++retried;
    }
    EXPECT_EQ(retried, 2);
    const ResultsDocument src = load_results(source);
    for (const auto& s : src.runs) {
        if (s.run.id != run.run.id) continue;
        EXPECT_EQ(run.metrics.at("cost.after_first_use.cuda.free").stats.median,
                  s.metrics.at("cost.after_first_use.cuda.free").stats.median);
        EXPECT_EQ(run.metrics.at("cost.after_first_use.cuda.free").stats.n, 7u);
    }
}

TEST(DisturbanceReplay, ANegativeCostBeyondTheNoiseIsADisturbanceNotNothingUsed) {
    const auto r = replay_with("negative", R"(replay_script_version: 1
transforms:
  - op: offset
    runs: "quick-overhead/cudaMallocHost/4GiB/*"
    probe: cuda.free
    bytes: -300MiB
)",
                               "quick-overhead/cudaMallocHost/4GiB/*");
    EXPECT_EQ(r.outcome.exit_code, 3) << r.outcome.output;
    const RunRecord& run = only_run(r.doc);
    EXPECT_EQ(run.status, Status::disturbed);
    EXPECT_EQ(run.disturbance.at("evidence").at(0).at("what"), "negative_cost");
}

// Without process lists (WSL2, or NVML behind a shim that refuses them) a neighbour that
// allocates while the child measures is counted in the repeat's device-level costs and the
// watch sees nobody: the repeats must agree, or the odd one is retried and never passes as ok.
TEST(DisturbanceReplay, WithoutProcessListsANeighboursAllocationNeverPassesAsCost) {
    const auto r = replay_with("hidden", R"(replay_script_version: 1
inject:
  - what: disturbance
    runs: "quick-overhead/cudaMallocHost/4GiB/*"
    repeat: 2
    bytes: 256MiB
    process_lists: false
)",
                               "quick-overhead/cudaMallocHost/4GiB/*");
    ASSERT_EQ(r.outcome.kind, ProcessOutcome::Kind::exited) << r.outcome.output;
    EXPECT_EQ(r.outcome.exit_code, 3) << r.outcome.output;
    const RunRecord& run = only_run(r.doc);
    EXPECT_EQ(run.status, Status::disturbed) << "repeat 2 is off by 256 MiB on every attempt";
    EXPECT_EQ(r.doc.controls.at("watch").at("level"), "device");
    EXPECT_NE(r.doc.controls.at("watch").at("level_why").get<std::string>().find("no process list"),
              std::string::npos);
    for (const auto& rep : run.repeats) {
        if (rep.index == 2) EXPECT_EQ(rep.status, Status::disturbed) << "attempt " << rep.attempt;
    }
}

TEST(DisturbanceReplay, WithoutProcessListsATransientNeighbourEndsOkWithTheQuietValues) {
    const auto r = replay_with("hidden-transient", R"(replay_script_version: 1
inject:
  - what: disturbance
    runs: "quick-overhead/cudaMallocHost/4GiB/*"
    repeat: 2
    attempts: 1
    bytes: 68MiB
    process_lists: false
)",
                               "quick-overhead/cudaMallocHost/4GiB/*");
    EXPECT_EQ(r.outcome.exit_code, 0) << r.outcome.output;
    const RunRecord& run = only_run(r.doc);
    EXPECT_EQ(run.status, Status::ok);
    const ResultsDocument src = load_results(source);
    for (const auto& s : src.runs) {
        if (s.run.id != run.run.id) continue;
        for (const char* key : {"cost.after_first_use.cuda.free", "cost.after_alloc.cuda.free"}) {
            if (!s.metrics.contains(key)) continue;
            const auto& got = run.metrics.at(key).stats;
            const auto& quiet = s.metrics.at(key).stats;
            EXPECT_EQ(got.median, quiet.median) << key;
            EXPECT_EQ(got.max, quiet.max) << key << ": the 68 MiB repeat must not count";
            EXPECT_EQ(got.n, 7u) << key;
        }
    }
}

// Fewer than 3 clean repeats cannot show that they agree: without process lists their
// device-level metrics are kept but marked disturbed (never judged), whatever they read.
TEST(DisturbanceReplay, WithoutProcessListsTwoRepeatsAreNeverJudgedOnDeviceLevelKeys) {
    const auto r = replay_with("hidden-two", R"(replay_script_version: 1
inject:
  - what: disturbance
    runs: "apis-overhead/pageable/64MiB/*"
    repeat: 0
    bytes: 256MiB
    process_lists: false
)",
                               "apis-overhead/pageable/64MiB/*",
                               std::string(PINBENCH_SOURCE_DIR) + "/results/h200-apis/results.json");
    EXPECT_EQ(r.outcome.exit_code, 0) << r.outcome.output;
    const RunRecord& run = only_run(r.doc);
    ASSERT_EQ(run.repeats.size(), 2u);
    int device_level = 0;
    for (const auto& [name, m] : run.metrics) {
        if (!name.ends_with(".cuda.free") && name.find(".nvml.") == std::string::npos) continue;
        if (name.ends_with("process_used") || name.ends_with(".total")) continue;
        ++device_level;
        EXPECT_TRUE(m.disturbed) << name << ": 2 repeats without process lists, one off by 256 MiB";
    }
    EXPECT_GT(device_level, 0);
    EXPECT_EQ(run.repeats[0].disturbance.at("evidence").back().at("what"), "unverified");
}

}  // namespace
}  // namespace pinbench
