// pinbench's cuda backend run end to end against the test-double driver (docs/test-double.md):
// doctor, a scenario of every kind with the scripted costs in its results to the byte, a blind
// probe failing its control, a scripted error mid-run, a cancelled run and its resume, a missing
// entry point WAIVING only what needs it, `store add` refusing the results, and `pinbench trace`
// through the CUPTI double. POSIX (signals, LD_LIBRARY_PATH); ci/wine_double.sh runs the Windows
// build under Wine.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "pinbench/platform/subprocess.hpp"
#include "pinbench/results/environment_record.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/vocabulary/test_double.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
constexpr std::uint64_t MiB = std::uint64_t{1} << 20;

// Empty when the harness loads the driver API (and so the double); else why these tests skip.
constexpr const char* skip_reason = PINBENCH_DOUBLE_END_TO_END_SKIP;

const std::string every_kind =
    std::string(PINBENCH_SOURCE_DIR) + "/harness/tests/doubles/scenarios/every_kind.yaml";

// Prices in the scripts below, so expected costs are computed from them, not typed again.
constexpr std::uint64_t malloc_host_per_gib = 2 * MiB;  // cuMemHostAlloc, flags 0
constexpr std::uint64_t mapped_per_gib = 8 * MiB;       // cuMemHostAlloc, CU_MEMHOSTALLOC_DEVICEMAP (2)
constexpr std::uint64_t register_per_gib = 1 * MiB;     // cuMemHostRegister_v2
constexpr std::uint64_t vmm_per_gib = 4 * MiB;          // cuMemCreate at a host location
constexpr std::uint64_t pool_per_gib = 16 * MiB;        // cuMemAllocFromPoolAsync from a host pool

// Two 512 MiB devices: small, as the capacity kinds fill what is free and every byte filled is
// a host page touched.
std::string priced_script(const std::string& extra = "") {
    return "devices = 2\ntotal_memory = 512MiB\nreserved_memory = 32MiB\ncontext_cost = 16MiB\n"
           "pin_cost_per_gib.cuMemHostAlloc = " +
           std::to_string(malloc_host_per_gib) +
           "\npin_cost_per_gib.cuMemHostAlloc:2 = " + std::to_string(mapped_per_gib) +
           "\npin_cost_per_gib.cuMemHostRegister_v2 = " + std::to_string(register_per_gib) +
           "\npin_cost_per_gib.cuMemCreate = " + std::to_string(vmm_per_gib) +
           "\npin_cost_per_gib.cuMemAllocFromPoolAsync = " + std::to_string(pool_per_gib) + "\n" + extra;
}

std::uint64_t cost_of(std::uint64_t bytes, std::uint64_t per_gib) { return bytes * per_gib / (1024 * MiB); }

class DoubleEndToEnd : public ::testing::Test {
protected:
    void SetUp() override {
        if (*skip_reason != '\0') GTEST_SKIP() << skip_reason;
    }

    // The environment that makes pinbench load the double `variant`, scripted by `script`.
    std::map<std::string, std::string> double_env(const std::string& script,
                                                  const char* variant = "current") {
        const std::string path = dir_.file("double-" + std::to_string(scripts_++) + ".conf");
        std::ofstream(path) << script;
        const char* old = std::getenv("LD_LIBRARY_PATH");
        std::string libs = std::string(PINBENCH_DRIVER_DOUBLE_DIR) + "/" + variant;
        if (old != nullptr && *old != '\0') libs += std::string(":") + old;
        // The shared temporary folder, as users run pinbench: CTest runs these tests in parallel,
        // so each pinbench starts beside others and sweeps the folder they work in.
        return {{"LD_LIBRARY_PATH", libs}, {"PINBENCH_DRIVER_DOUBLE", path}};
    }

    static ProcessOutcome pinbench(std::vector<std::string> args,
                                   const std::map<std::string, std::string>& env) {
        args.insert(args.begin(), PINBENCH_EXE);
        Subprocess p(args, env);
        return p.wait(60s);
    }

    // `pinbench run --backend cuda` of `scenario` (with `extra` options) into `output`.
    ProcessOutcome run(const std::string& scenario, const std::string& output,
                       const std::map<std::string, std::string>& env, std::vector<std::string> extra = {}) {
        // A small positive control: the double backs device memory with host pages it touches.
        std::vector<std::string> args{"run",  scenario,       "--backend",      "cuda", "-o",
                                      output, "--no-summary", "--control-size", "16MiB"};
        args.insert(args.end(), extra.begin(), extra.end());
        return pinbench(args, env);
    }

    static const RunRecord& run_of(const ResultsDocument& doc, const std::string& id) {
        for (const RunRecord& r : doc.runs) {
            if (r.run.id == id) return r;
        }
        throw std::runtime_error("no run " + id);
    }

    // The run's metric (its median over the repeats: every repeat of the double costs the same),
    // or -1 when it has none (the message names what it has).
    static double metric(const RunRecord& r, const std::string& name) {
        const auto it = r.metrics.find(name);
        if (it == r.metrics.end()) {
            std::string names;
            for (const auto& [n, m] : r.metrics) names += n + " ";
            ADD_FAILURE() << r.run.id << " has no " << name << "; it has " << names;
            return -1;
        }
        return it->second.stats.median;
    }

    testing_support::TempDir dir_{"pinbench_double_e2e"};
    int scripts_ = 0;
};

TEST_F(DoubleEndToEnd, DoctorPassesOnAWellScriptedDouble) {
    const auto out = pinbench({"doctor", "--bundle", dir_.file("doctor.json"), "--control-size", "128MiB"},
                              double_env(priced_script()));
    ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
    EXPECT_EQ(out.exit_code, 0) << out.output;
    EXPECT_NE(out.output.find(std::string("pinbench ") + test_double_marker), std::string::npos)
        << out.output;
}

TEST_F(DoubleEndToEnd, AProbeScriptedBlindFailsItsControl) {
    for (const char* probe : {"cuMemGetInfo", "nvml"}) {
        SCOPED_TRACE(probe);
        const auto out =
            pinbench({"doctor", "--bundle", dir_.file("doctor.json"), "--control-size", "128MiB"},
                     double_env(priced_script(std::string("blind = ") + probe + "\n")));
        ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
        EXPECT_EQ(out.exit_code, 3) << out.output;  // README: a failed control is exit 3
    }
}

// A driver older than the oldest supported (R525, CUDA 12.0) is no CUDA driver: doctor and a
// run stop with infrastructure's exit 3 and say which release they found and which they need,
// instead of failing later on an entry point or a behaviour the old driver lacks.
TEST_F(DoubleEndToEnd, ADriverOlderThanTheOldestSupportedIsRefusedNamingBoth) {
    const auto env = double_env(priced_script("cuda_driver_version = 11080\n"));
    const auto doctor =
        pinbench({"doctor", "--bundle", dir_.file("doctor.json"), "--control-size", "16MiB"}, env);
    ASSERT_EQ(doctor.kind, ProcessOutcome::Kind::exited) << doctor.output;
    EXPECT_EQ(doctor.exit_code, 3) << doctor.output;
    EXPECT_NE(doctor.output.find("is CUDA 11.8, older than the oldest supported, CUDA 12.0 (R525)"),
              std::string::npos)
        << doctor.output;
    const auto out = run(every_kind, dir_.file("old.json"), env, {"--only", "*overhead*"});
    ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
    EXPECT_EQ(out.exit_code, 3) << out.output;
    EXPECT_NE(out.output.find("older than the oldest supported"), std::string::npos) << out.output;
}

TEST_F(DoubleEndToEnd, OverheadCarriesTheScriptedCostOfEveryApi) {
    const std::string output = dir_.file("overhead.json");
    const auto out = run(every_kind, output, double_env(priced_script()), {"--only", "double-overhead/*"});
    ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
    ASSERT_EQ(out.exit_code, 0) << out.output;
    const ResultsDocument doc = load_results(output);  // the strict reader: a valid file
    EXPECT_TRUE(doc.complete);
    EXPECT_TRUE(produced_by_test_double(doc.environment));
    const std::map<std::string, std::uint64_t> expected{
        {"double-overhead/pageable/64MiB/x1/g1", 0},
        {"double-overhead/cudaMallocHost/64MiB/x1/g1", cost_of(64 * MiB, malloc_host_per_gib)},
        {"double-overhead/cudaHostAlloc:mapped/64MiB/x1/g1", cost_of(64 * MiB, mapped_per_gib)},
        {"double-overhead/cudaHostRegister/64MiB/x1/g1", cost_of(64 * MiB, register_per_gib)},
        {"double-overhead/cuMemCreate:host/64MiB/x1/g1", cost_of(64 * MiB, vmm_per_gib)},
        {"double-overhead/cudaMallocFromPoolAsync:host/64MiB/x1/g1", cost_of(64 * MiB, pool_per_gib)},
    };
    ASSERT_EQ(doc.runs.size(), expected.size());
    for (const auto& [id, cost] : expected) {
        SCOPED_TRACE(id);
        const RunRecord& r = run_of(doc, id);
        ASSERT_EQ(r.status, Status::ok) << r.reason;
        // What the process can allocate and what NVML says the device uses agree, to the byte.
        EXPECT_EQ(metric(r, "cost.after_alloc.cuda.free"), static_cast<double>(cost));
        EXPECT_EQ(metric(r, "cost.after_first_use.cuda.free"), static_cast<double>(cost));
        EXPECT_EQ(metric(r, "cost.after_alloc.nvml.0.used"), static_cast<double>(cost));
        EXPECT_EQ(metric(r, "residual.after_free.cuda.free"), 0.0);
    }
}

// What NVML's used on device 0 holds beyond the listed processes' memory (the driver's own of
// each initialised process, the double's init_cost) at the first reading of `run_id`'s first
// repeat in the results file `path`.
std::int64_t unlisted_at_first_reading(const std::string& path, const std::string& run_id) {
    const json doc = json::parse(std::ifstream(path));
    for (const json& run : doc.at("runs")) {
        if (run.at("id") != run_id) continue;
        const json& readings = run.at("repeats").at(0).at("snapshots").at(0).at("readings");
        return readings.at("nvml.0.used").get<std::int64_t>() -
               readings.at("nvml.0.process_used").get<std::int64_t>();
    }
    ADD_FAILURE() << path << " has no run " << run_id;
    return -1;
}

// A holder process keeps the driver initialised beside the children (run/driver_hold.hpp), on a
// driver where an initialised process holds device memory it does not list (the H100's 3.25 MiB),
// and stands aside for a run that starts other CUDA processes. A plan of one-process runs, then
// a workers run, then a one-process run: every cost is what each child initialising alone
// (--fresh-driver) measures, no run is disturbed, the holder's memory is on the device during
// the one-process runs and not during the workers run, and the record names the run measured
// without it.
TEST_F(DoubleEndToEnd, TheDriverHolderMovesNoCostAndStandsAsideForWorkers) {
    constexpr std::int64_t init_cost = 3 * MiB;
    const auto env = double_env(priced_script("init_cost = " + std::to_string(init_cost) + "\n"));
    const std::string workers = "double-workers/cudaMallocHost/16MiB/x1/g1/workers=2/variant=per_process";
    std::map<std::string, std::map<std::string, double>> costs[2];
    std::map<std::string, std::int64_t> unlisted[2];
    std::vector<std::string> order;
    for (const bool fresh : {false, true}) {
        SCOPED_TRACE(fresh ? "--fresh-driver" : "held");
        const std::string output = dir_.file(fresh ? "fresh.json" : "held.json");
        std::vector<std::string> extra{"--only", "double-overhead/*", "--only", "double-workers/*",
                                       "--only", "double-churn/*"};
        if (fresh) extra.emplace_back("--fresh-driver");
        const auto out = run(every_kind, output, env, extra);
        ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
        ASSERT_EQ(out.exit_code, 0) << out.output;
        const ResultsDocument doc = load_results(output);
        const json& parent = doc.environment.at("parent_driver");
        EXPECT_EQ(parent.at("held").get<bool>(), !fresh) << parent.dump();
        EXPECT_EQ(parent.at("why").get<std::string>().rfind(fresh ? "off (--fresh-driver)" : "held:", 0), 0u)
            << parent.dump();
        if (fresh) {
            EXPECT_FALSE(parent.contains("released_for")) << parent.dump();
        } else {
            EXPECT_EQ(parent.value("released_for", json()), json::array({workers})) << parent.dump();
        }
        ASSERT_EQ(doc.runs.size(), 8u);
        order.clear();
        for (const RunRecord& r : doc.runs) {
            ASSERT_EQ(r.status, Status::ok) << r.run.id << ": " << r.reason;
            // The first repeat after the holder stopped or started waited for the devices' new
            // level, not for the old one it would never see again.
            for (const RepeatRecord& rep : r.repeats)
                EXPECT_TRUE(rep.parent_settled) << r.run.id << ": " << rep.error;
            order.push_back(r.run.kind);
            unlisted[fresh ? 1 : 0][r.run.id] = unlisted_at_first_reading(output, r.run.id);
            for (const auto& [name, m] : r.metrics) {
                if (name.rfind("cost.", 0) == 0 || name.rfind("residual.", 0) == 0) {
                    costs[fresh ? 1 : 0][r.run.id][name] = m.stats.median;
                }
            }
        }
    }
    // One-process runs, the workers run, a one-process run: the holder stops, then starts again.
    EXPECT_EQ(order, (std::vector<std::string>{"overhead", "overhead", "overhead", "overhead", "overhead",
                                               "overhead", "workers", "churn"}));
    EXPECT_EQ(costs[0], costs[1]);
    EXPECT_EQ(costs[0]["double-overhead/cudaMallocHost/64MiB/x1/g1"]["cost.after_alloc.nvml.0.used"],
              static_cast<double>(cost_of(64 * MiB, malloc_host_per_gib)));
    ASSERT_EQ(unlisted[0].size(), 8u);
    for (const auto& [id, held] : unlisted[0]) {
        SCOPED_TRACE(id);
        // Alone, the child's own cuInit; beside the holder, the holder's too.
        EXPECT_EQ(unlisted[1][id], init_cost);
        EXPECT_EQ(held, id == workers ? init_cost : 2 * init_cost);
    }
}

// A holder that cannot initialise the driver (the second cuInit of the test fails: the
// environment child's is the first) holds nothing: the runs are measured as with --fresh-driver
// and the record gives the holder's reason.
TEST_F(DoubleEndToEnd, AHolderThatFailsToStartHoldsNothingAndSaysWhy) {
    const auto env = double_env(priced_script("init_cost = 3MiB\nfail_call.cuInit = 2\n"));
    const std::string output = dir_.file("holder-failed.json");
    const auto out = run(every_kind, output, env, {"--only", "double-overhead/cudaMallocHost/*"});
    ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
    ASSERT_EQ(out.exit_code, 0) << out.output;
    const ResultsDocument doc = load_results(output);
    EXPECT_EQ(doc.environment.at("parent_driver"),
              (json{{"held", false},
                    {"why", "not held: cuInit failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"}}));
    ASSERT_EQ(doc.runs.size(), 1u);
    EXPECT_EQ(doc.runs[0].status, Status::ok) << doc.runs[0].reason;
    EXPECT_EQ(unlisted_at_first_reading(output, doc.runs[0].run.id), 3 * MiB);
}

TEST_F(DoubleEndToEnd, EveryKindRunsAndItsResultsValidate) {
    const std::string output = dir_.file("every-kind.json");
    std::vector<std::string> only;
    for (const char* name : {"capacity", "sweep", "multi-gpu", "workers", "churn", "fragmentation", "shared",
                             "register-window", "command"}) {
        only.insert(only.end(), {"--only", std::string("double-") + name + "/*"});
    }
    const auto out = run(every_kind, output, double_env(priced_script()), only);
    ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
    EXPECT_EQ(out.exit_code, 0) << out.output;
    const ResultsDocument doc = load_results(output);
    EXPECT_TRUE(doc.complete);
    std::map<std::string, int> kinds;
    for (const RunRecord& r : doc.runs) {
        SCOPED_TRACE(r.run.id);
        ++kinds[r.run.kind];
        if (r.run.kind == "command") {
            // `true` pins nothing and the double has no CUPTI to trace it: waived, with the reason.
            EXPECT_EQ(r.status, Status::waived) << to_string(r.status) << " " << r.reason;
            EXPECT_FALSE(r.reason.empty());
        } else {
            EXPECT_EQ(r.status, Status::ok) << to_string(r.status) << " " << r.reason;
        }
    }
    EXPECT_EQ(kinds.size(), 9u);  // every kind but overhead (its own test above)
}

// max_pinnable where the cap pins at once (most machines): the probes at the largest success are
// read while that pin is still held, not after pinning the cap a second time. The double fails the
// second registration of the test: a second pin of the cap would leave the run without its
// at_max_pinnable readings (at_max_pinnable_error).
TEST_F(DoubleEndToEnd, MaxPinnableReadsItsProbesOnTheCapsOwnPin) {
    const std::string scenario = dir_.file("max-pinnable.yaml");
    std::ofstream(scenario)
        << "schema_version: 2\nscenarios:\n  - name: double-max-pinnable\n    kind: sweep\n"
           "    api: cudaHostRegister\n    repeats: 1\n"
           "    params: {mode: max_pinnable, cap: 64MiB, time_limit_s: 10}\n";
    const std::string output = dir_.file("max-pinnable.json");
    const auto out = run(scenario, output, double_env(priced_script("fail_call.cuMemHostRegister_v2 = 2\n")),
                         {"--all-repeats"});
    ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
    ASSERT_EQ(out.exit_code, 0) << out.output;
    const ResultsDocument doc = load_results(output);
    ASSERT_EQ(doc.runs.size(), 1u);
    const RunRecord& r = doc.runs.front();
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    ASSERT_EQ(r.repeats.size(), 1u);
    const RepeatRecord& repeat = r.repeats.front();
    EXPECT_EQ(repeat.data.at("max_pinnable").get<std::uint64_t>(), 64 * MiB);
    EXPECT_FALSE(repeat.data.contains("at_max_pinnable_error")) << repeat.data.dump();
    std::vector<std::string> labels;
    for (const Snapshot& s : repeat.snapshots) labels.push_back(s.label);
    EXPECT_EQ(labels, (std::vector<std::string>{"after_context", "at_max_pinnable", "after_free"}));
    // Read while the 64 MiB registration is held: its scripted cost, and none left after it.
    const auto used = [&](const std::string& label) {
        for (const Snapshot& s : repeat.snapshots) {
            if (s.label == label) return s.readings.at("nvml.0.used").bytes.value_or(-1);
        }
        return std::int64_t{-1};
    };
    EXPECT_EQ(used("at_max_pinnable") - used("after_context"),
              static_cast<std::int64_t>(cost_of(64 * MiB, register_per_gib)));
    EXPECT_EQ(used("after_free"), used("after_context"));
    EXPECT_EQ(repeat.data.at("free_after"), repeat.data.at("free_before"));
}

// pinbench trace of a small program (traced_program.cpp): the double loads the injection library
// at cuInit, the CUPTI double's subscriber gets the calls; the trace holds them as the program
// noted it made them. ci/wine_double.sh does the same under Wine.
TEST_F(DoubleEndToEnd, TraceHoldsTheProgramsPinningCallsAsItMadeThem) {
    const std::string cupti = std::string(PINBENCH_DRIVER_DOUBLE_DIR) + "/cupti/libcupti.so";
    const std::string program = std::string(PINBENCH_DRIVER_DOUBLE_DIR) + "/program/traced_program";
    if (!std::filesystem::exists(cupti) || !std::filesystem::exists(program)) {
        GTEST_SKIP() << "no CUPTI double: this build found no crt/host_defines.h (ci/setup-debian.sh)";
    }
    auto env = double_env(priced_script());
    env["PINBENCH_CUPTI_LIBRARY"] = cupti;
    const std::string output = dir_.file("trace.json");
    const auto out = pinbench({"trace", "-o", output, "--stack", "4", "--", program}, env);
    ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
    ASSERT_EQ(out.exit_code, 0) << out.output;
    json t;
    std::ifstream(output) >> t;
    ASSERT_EQ(t["tracing"]["state"], "on") << t["tracing"].dump();
    EXPECT_EQ(t["tracing"]["processes"][0]["cupti"], cupti);
    const json& made = t["notes"]["traced_program"];
    const json& calls = t["calls"];
    ASSERT_EQ(made.size(), 3u) << t["notes"].dump();
    ASSERT_EQ(calls.size(), 6u) << calls.dump();
    for (std::size_t i = 0; i < made.size(); ++i) {  // the two cuMemHostAlloc, the registration
        SCOPED_TRACE(made[i].dump());
        for (const char* field : {"api", "bytes", "flags", "address"})
            EXPECT_EQ(calls[i][field], made[i][field]);
        EXPECT_EQ(calls[i]["result_name"], "CUDA_SUCCESS");
        EXPECT_EQ(calls[i]["device"], 0);
    }
    EXPECT_EQ(calls[3]["api"], "cuMemHostUnregister");
    EXPECT_EQ(calls[3]["address"], made[2]["address"]);
    for (std::size_t i = 4; i < 6; ++i) {
        EXPECT_EQ(calls[i]["api"], "cuMemFreeHost");
        EXPECT_EQ(calls[i]["address"], made[i - 4]["address"]);
    }
    EXPECT_EQ(t["pinned"]["peak_bytes"], 9 * MiB);
    EXPECT_EQ(t["pinned"]["peak_by_family"], json({{"host_alloc", 6 * MiB}, {"host_register", 3 * MiB}}));
    EXPECT_EQ(t["pinned"]["unmatched_releases"], 0);
}

TEST_F(DoubleEndToEnd, AScriptedErrorMidRunFailsThatRunAlone) {
    const std::string output = dir_.file("failed.json");
    // The second cuMemHostAlloc of the test fails with CUDA_ERROR_UNKNOWN (999): one run fails, the
    // others go on. (Out of memory would read as "more than this machine can pin": WAIVED.)
    const auto out =
        run(every_kind, output,
            double_env(priced_script("fail_call.cuMemHostAlloc = 2\nfail_error.cuMemHostAlloc = 999\n")),
            {"--only", "double-overhead/*"});
    ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
    EXPECT_EQ(out.exit_code, 3) << out.output;  // README: a run that failed is exit 3
    const ResultsDocument doc = load_results(output);
    EXPECT_TRUE(doc.complete);
    ASSERT_EQ(doc.runs.size(), 6u);
    int failed = 0;
    for (const RunRecord& r : doc.runs) {
        SCOPED_TRACE(r.run.id);
        if (r.status == Status::failed) {
            ++failed;
            EXPECT_NE(r.reason.find("CUDA_ERROR_UNKNOWN"), std::string::npos) << r.reason;
        } else {
            EXPECT_EQ(r.status, Status::ok) << to_string(r.status) << " " << r.reason;
        }
    }
    EXPECT_EQ(failed, 1);
}

TEST_F(DoubleEndToEnd, AMissingEntryPointWaivesOnlyWhatNeedsIt) {
    const std::string output = dir_.file("old-driver.json");
    const auto out =
        run(every_kind, output, double_env(priced_script(), "old"), {"--only", "double-overhead/*"});
    ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
    EXPECT_EQ(out.exit_code, 0) << out.output;  // waived runs are not failures
    const ResultsDocument doc = load_results(output);
    // Each waived with the first entry point of its family the harness looked for.
    const std::map<std::string, std::string> waived{
        {"double-overhead/cuMemCreate:host/64MiB/x1/g1",
         "cuMemGetAllocationGranularity not exported by this driver"},
        {"double-overhead/cudaMallocFromPoolAsync:host/64MiB/x1/g1",
         "cuMemPoolCreate not exported by this driver"},
    };
    for (const RunRecord& r : doc.runs) {
        SCOPED_TRACE(r.run.id);
        const auto it = waived.find(r.run.id);
        if (it == waived.end()) {
            EXPECT_EQ(r.status, Status::ok) << r.reason;
            continue;
        }
        EXPECT_EQ(r.status, Status::waived) << to_string(r.status);
        EXPECT_NE(r.reason.find(it->second), std::string::npos) << r.reason;
    }
}

TEST_F(DoubleEndToEnd, ACancelledRunResumesToEveryPlannedRun) {
    const std::string output = dir_.file("cancelled.json");
    const auto env = double_env(priced_script());
    std::vector<std::string> args{
        PINBENCH_EXE, "run",          every_kind, "--backend",         "cuda",           "-o",
        output,       "--no-summary", "--only",   "double-overhead/*", "--control-size", "16MiB"};
    Subprocess p(args, env);
    // SIGINT once the first run is in the file (written after every run), as a user's Ctrl-C.
    const auto until = std::chrono::steady_clock::now() + 30s;
    bool started = false;
    while (!started && std::chrono::steady_clock::now() < until) {
        std::this_thread::sleep_for(20ms);
        std::ifstream in(output);
        started = in && json::parse(in, nullptr, false).value("runs", json::array()).size() >= 1;
    }
    ASSERT_TRUE(started) << "no run was written within 30 s";
    ::kill(static_cast<pid_t>(p.pid()), SIGINT);
    const auto cancelled = p.wait(30s);
    ASSERT_EQ(cancelled.kind, ProcessOutcome::Kind::exited) << cancelled.output;
    const ResultsDocument partial = load_results(output);
    if (partial.complete) GTEST_SKIP() << "the run ended before SIGINT reached it; nothing to resume";
    EXPECT_EQ(cancelled.exit_code, 128 + SIGINT) << cancelled.output;
    EXPECT_LT(partial.runs.size(), 6u);

    const auto resumed =
        pinbench({"run", "--resume", output, "--no-summary", "--control-size", "16MiB"}, env);
    ASSERT_EQ(resumed.kind, ProcessOutcome::Kind::exited) << resumed.output;
    EXPECT_EQ(resumed.exit_code, 0) << resumed.output;
    const ResultsDocument whole = load_results(output);
    EXPECT_TRUE(whole.complete);
    ASSERT_EQ(whole.runs.size(), 6u);
    for (const RunRecord& r : whole.runs) EXPECT_EQ(r.status, Status::ok) << r.run.id << " " << r.reason;
}

TEST_F(DoubleEndToEnd, StoreAddRefusesTheDoublesResults) {
    const std::string output = dir_.file("to-store.json");
    const auto env = double_env(priced_script());
    const auto measured = run(every_kind, output, env, {"--only", "double-overhead/pageable/*"});
    ASSERT_EQ(measured.exit_code, 0) << measured.output;
    const auto out = pinbench({"store", "add", output, "--store", dir_.file("store")}, {});
    ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
    EXPECT_EQ(out.exit_code, 2) << out.output;
    EXPECT_NE(out.output.find("test-double driver"), std::string::npos) << out.output;
    EXPECT_FALSE(std::filesystem::exists(dir_.file("store") + "/real"));
}

}  // namespace
}  // namespace pinbench
