// `pinbench budget` end to end against the test-double driver (docs/budget.md,
// docs/test-double.md): each way a search can end (the driver's limit, the cap, the time limit,
// the host's available memory), a failure that poisons the process, a silent fallback, and the
// document's numbers computed from the script's prices. POSIX (LD_LIBRARY_PATH).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "budget/budget.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;
constexpr std::uint64_t MiB = std::uint64_t{1} << 20, GiB = std::uint64_t{1} << 30;

constexpr const char* skip_reason = PINBENCH_DOUBLE_END_TO_END_SKIP;

// Prices of the scripts below.
constexpr std::uint64_t malloc_host_per_gib = 2 * MiB;  // cuMemHostAlloc
constexpr std::uint64_t register_per_gib = 1 * MiB;     // cuMemHostRegister_v2
constexpr std::uint64_t chunk = 8 * MiB;

std::string priced(const std::string& extra) {
    return "total_memory = 1GiB\ncontext_cost = 16MiB\npin_cost_per_gib.cuMemHostAlloc = " +
           std::to_string(malloc_host_per_gib) +
           "\npin_cost_per_gib.cuMemHostRegister_v2 = " + std::to_string(register_per_gib) + "\n" + extra;
}

class DoubleBudget : public ::testing::Test {
protected:
    void SetUp() override {
        if (*skip_reason != '\0') GTEST_SKIP() << skip_reason;
    }

    struct Outcome {
        ProcessOutcome process;
        json doc;
        const json& family(const std::string& name) const {
            for (const json& f : doc["families"]) {
                if (f["family"] == name) return f;
            }
            throw std::runtime_error("no family " + name);
        }
    };

    // `pinbench budget` with `args` against the double scripted by `script`; the document it wrote.
    // `env`: more environment (a fake memory root); `shell`: a shell line run before pinbench in
    // the same process (`ulimit -v N`: a limit pinbench cannot see coming).
    Outcome budget(const std::string& script, std::vector<std::string> args,
                   std::map<std::string, std::string> env = {}, const std::string& shell = "") {
        const std::string conf = dir_.file("double-" + std::to_string(n_) + ".conf");
        const std::string out = dir_.file("budget-" + std::to_string(n_++) + ".json");
        std::ofstream(conf) << script;
        const char* old = std::getenv("LD_LIBRARY_PATH");
        std::string libs = std::string(PINBENCH_DRIVER_DOUBLE_DIR) + "/current";
        if (old != nullptr && *old != '\0') libs += std::string(":") + old;
        args.insert(args.begin(), {PINBENCH_EXE, "budget", "-o", out, "--chunk", "8MiB"});
        if (!shell.empty()) args.insert(args.begin(), {"/bin/sh", "-c", shell + " && exec \"$0\" \"$@\""});
        env["LD_LIBRARY_PATH"] = libs;
        env["PINBENCH_DRIVER_DOUBLE"] = conf;
        Subprocess p(args, env);
        Outcome o;
        o.process = p.wait(50s);
        std::ifstream in(out);
        if (in) {
            std::stringstream text;
            text << in.rdbuf();
            o.doc = json::parse(text.str());
        }
        return o;
    }

    testing_support::TempDir dir_{"pinbench_double_budget"};
    int n_ = 0;
};

bool has(const std::string& output, const std::string& needle) {
    return output.find(needle) != std::string::npos;
}

// A limit of 90 MiB pinned at once: 11 chunks of 8 MiB hold 88 MiB and the 12th fails; the
// largest single pin is bisected to 88 MiB (from a cap of 100 MiB, no whole number of chunks);
// the safe budget is 80% of 88 MiB in whole chunks.
TEST_F(DoubleBudget, TheDriversLimitGivesTheBudgetAndItsVramCost) {
    const Outcome o = budget(priced("pin_limit = 90MiB\n"), {"--cap", "100MiB"});
    ASSERT_EQ(o.process.exit_code, 0) << o.process.output;
    EXPECT_EQ(o.doc["schema"], "pinbench.budget");
    EXPECT_EQ(o.doc["version"], kBudgetVersion);
    EXPECT_EQ(o.doc["complete"], true);
    for (const auto& [name, per_gib] : std::map<std::string, std::uint64_t>{
             {"cudaMallocHost", malloc_host_per_gib}, {"cudaHostRegister", register_per_gib}}) {
        SCOPED_TRACE(name);
        const json& f = o.family(name);
        ASSERT_EQ(f["status"], "ok") << f.dump();
        EXPECT_EQ(f["held_at_once"]["bytes"], 88 * MiB);
        EXPECT_EQ(f["held_at_once"]["stopped_by"], "driver");
        EXPECT_EQ(f["largest_single"]["bytes"], 88 * MiB);
        EXPECT_EQ(f["largest_single"]["stopped_by"], "driver");
        EXPECT_FALSE(f["phases"]["single"]["data"].contains("bisection_stopped_by"))
            << "the bisection ended by itself, not on the time limit";
        EXPECT_EQ(f["failure"], "clean");
        EXPECT_EQ(f["silent_fallback"], false);
        EXPECT_EQ(f["limit_found"], true);
        const std::uint64_t safe = 88 * MiB * 8 / 10 / chunk * chunk;  // 64 MiB
        EXPECT_EQ(f["safe_budget"], safe);
        EXPECT_EQ(f["vram_cost_at_budget"],
                  safe / (1024 * MiB) * per_gib + safe % (1024 * MiB) * per_gib / (1024 * MiB));
        EXPECT_EQ(f["device_free_residual"], 0) << "everything pinned was given back";
    }
    EXPECT_EQ(o.doc["safe_budget"]["bytes"], 64 * MiB);
    EXPECT_TRUE(has(o.process.output, "safe budget: 64 MiB")) << o.process.output;
    EXPECT_TRUE(has(o.process.output, "a pin failed at 96 MiB")) << o.process.output;
    EXPECT_FALSE(has(o.process.output, "the real limit is higher")) << o.process.output;
}

TEST_F(DoubleBudget, ACapThatStopsTheSearchSaysTheRealLimitIsHigher) {
    const Outcome o = budget(priced(""), {"--cap", "64MiB"});
    ASSERT_EQ(o.process.exit_code, 0) << o.process.output;
    for (const char* name : {"cudaMallocHost", "cudaHostRegister"}) {
        const json& f = o.family(name);
        EXPECT_EQ(f["held_at_once"]["bytes"], 64 * MiB);
        EXPECT_EQ(f["held_at_once"]["stopped_by"], "cap");
        EXPECT_EQ(f["largest_single"]["bytes"], 64 * MiB);
        EXPECT_EQ(f["largest_single"]["stopped_by"], "cap");
        EXPECT_EQ(f["limit_found"], false);
        EXPECT_EQ(f["failure"], "not_seen");
        EXPECT_EQ(f["safe_budget"], 48 * MiB);
    }
    EXPECT_TRUE(has(o.process.output, "capped at 64 MiB, the real limit is higher")) << o.process.output;
    EXPECT_TRUE(has(o.process.output, "at least")) << o.process.output;
}

// The bytes of each pin the single phase tried, in order.
std::vector<std::uint64_t> tried_bytes(const json& family) {
    std::vector<std::uint64_t> bytes;
    for (const json& p : family["phases"]["single"]["data"]["tried"]) bytes.push_back(p["bytes"]);
    return bytes;
}

// The single phase's first try of the cap at once ({} when there was none).
json first_try(const json& family) {
    return family["phases"]["single"]["data"].value("first_try", json::object());
}

// Nothing fails below the cap: the held phase, run first, reaches the cap in chunks, so the
// single phase tries the cap at once and is done after that one pin (no doubling). The answers
// are those of the doubling: the cap, capped. A cap that is no whole number of chunks (100 MiB:
// the held phase stops at 96 MiB) is still tried whole.
TEST_F(DoubleBudget, WhenTheHeldPhaseReachesTheCapTheSinglePhasePinsTheCapOnce) {
    for (const std::uint64_t cap : {64 * MiB, 100 * MiB}) {
        SCOPED_TRACE(cap / MiB);
        const Outcome o = budget(priced(""), {"--cap", std::to_string(cap / MiB) + "MiB"});
        ASSERT_EQ(o.process.exit_code, 0) << o.process.output;
        for (const char* name : {"cudaMallocHost", "cudaHostRegister"}) {
            SCOPED_TRACE(name);
            const json& f = o.family(name);
            ASSERT_EQ(f["status"], "ok") << f.dump();
            EXPECT_EQ(f["held_at_once"]["bytes"], cap / chunk * chunk);
            EXPECT_EQ(f["held_at_once"]["stopped_by"], "cap");
            EXPECT_EQ(f["largest_single"]["bytes"], cap);
            EXPECT_EQ(f["largest_single"]["stopped_by"], "cap");
            EXPECT_EQ(tried_bytes(f), std::vector<std::uint64_t>{cap}) << "one pin of the cap";
            EXPECT_EQ(first_try(f).value("bytes", std::uint64_t{0}), cap);
            EXPECT_EQ(first_try(f).value("ok", false), true);
            EXPECT_EQ(f["failure"], "not_seen");
            EXPECT_EQ(f["silent_fallback"], false);
            EXPECT_EQ(f["limit_found"], false);
            EXPECT_EQ(f["safe_budget"], cap / chunk * chunk * 8 / 10 / chunk * chunk);
        }
        // The held phase ran first.
        const auto held = o.process.output.find("cudaMallocHost, held at once");
        const auto single = o.process.output.find("cudaMallocHost, largest single pin");
        ASSERT_NE(held, std::string::npos) << o.process.output;
        EXPECT_LT(held, single) << o.process.output;
    }
}

// A limit below the cap: the held phase ends on the driver, the cap is not tried at once, and the
// single phase searches as it always did: doubling from the chunk to the cap (100 MiB fails),
// then bisection in chunks between 64 and 100 MiB.
TEST_F(DoubleBudget, BelowTheCapTheSinglePhaseDoublesAndBisects) {
    const Outcome o = budget(priced("pin_limit = 90MiB\n"), {"--cap", "100MiB"});
    ASSERT_EQ(o.process.exit_code, 0) << o.process.output;
    for (const char* name : {"cudaMallocHost", "cudaHostRegister"}) {
        SCOPED_TRACE(name);
        const json& f = o.family(name);
        ASSERT_EQ(f["status"], "ok") << f.dump();
        EXPECT_EQ(tried_bytes(f), (std::vector<std::uint64_t>{8 * MiB, 16 * MiB, 32 * MiB, 64 * MiB,
                                                              100 * MiB, 80 * MiB, 88 * MiB, 96 * MiB}));
        EXPECT_FALSE(f["phases"]["single"]["data"].contains("first_try")) << "the held phase hit the limit";
        EXPECT_EQ(f["largest_single"]["bytes"], 88 * MiB);
        EXPECT_EQ(f["largest_single"]["stopped_by"], "driver");
        EXPECT_EQ(f["phases"]["single"]["data"]["smallest_failed"], 96 * MiB);
        EXPECT_EQ(f["held_at_once"]["bytes"], 88 * MiB);
        EXPECT_EQ(f["failure"], "clean");
    }
}

// A single pin above 40 MiB fails while 64 MiB held in 8 MiB chunks does not: the held phase
// reaches the cap, the cap tried at once fails, and a fresh process searches as before (8, 16,
// 32, 64 fails, bisection 48 fails, 40 pins): the largest single pin is 40 MiB, found by the
// driver. Where that failure poisons the process, the fresh process still finds 32 MiB (64 MiB
// fails there and poisons it, as it did before the first try), not the poison's 0.
TEST_F(DoubleBudget, AFailedFirstTryOfTheCapStillFindsTheLargestSinglePin) {
    const std::string limits = "fail_above.cuMemHostAlloc = 40MiB\nfail_above.cuMemHostRegister_v2 = 40MiB\n";
    for (const bool poisons : {false, true}) {
        SCOPED_TRACE(poisons ? "poisons" : "clean");
        const Outcome o =
            budget(priced(limits + (poisons ? "poison_after_failure = on\n" : "")), {"--cap", "64MiB"});
        ASSERT_EQ(o.process.exit_code, 0) << o.process.output;
        for (const char* name : {"cudaMallocHost", "cudaHostRegister"}) {
            SCOPED_TRACE(name);
            const json& f = o.family(name);
            ASSERT_EQ(f["status"], "ok") << f.dump();
            EXPECT_EQ(f["held_at_once"]["bytes"], 64 * MiB);
            EXPECT_EQ(f["held_at_once"]["stopped_by"], "cap");
            const json& single = f["phases"]["single"]["data"];
            EXPECT_EQ(first_try(f).value("bytes", std::uint64_t{0}), 64 * MiB) << single.dump();
            EXPECT_EQ(first_try(f).value("ok", true), false) << single.dump();
            EXPECT_EQ(f["largest_single"]["stopped_by"], "driver");
            if (poisons) {
                EXPECT_EQ(tried_bytes(f),
                          (std::vector<std::uint64_t>{8 * MiB, 16 * MiB, 32 * MiB, 64 * MiB}));
                EXPECT_EQ(f["largest_single"]["bytes"], 32 * MiB);
                EXPECT_EQ(single.value("bisection_skipped", ""), "the failure poisoned this process");
                EXPECT_EQ(f["failure"], "poisons");
            } else {
                EXPECT_EQ(tried_bytes(f), (std::vector<std::uint64_t>{8 * MiB, 16 * MiB, 32 * MiB, 64 * MiB,
                                                                      48 * MiB, 40 * MiB}));
                EXPECT_EQ(f["largest_single"]["bytes"], 40 * MiB);
                EXPECT_EQ(single.value("smallest_failed", std::uint64_t{0}), 48 * MiB);
                EXPECT_EQ(f["failure"], "clean");
            }
            EXPECT_EQ(f["safe_budget"], 48 * MiB) << "the held total's, as before";
        }
    }
}

// Every pinning call takes 400 ms and the four phases share 1 s: each stops on its time limit.
TEST_F(DoubleBudget, TheTimeLimitStopsTheSearchAndSaysSo) {
    const auto t0 = std::chrono::steady_clock::now();
    const Outcome o = budget(priced("pin_delay_ms = 400\n"), {"--cap", "1GiB", "--time-limit", "1"});
    ASSERT_EQ(o.process.exit_code, 0) << o.process.output;
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 30s);
    for (const char* name : {"cudaMallocHost", "cudaHostRegister"}) {
        const json& f = o.family(name);
        EXPECT_EQ(f["held_at_once"]["stopped_by"], "time_limit") << f.dump();
        EXPECT_EQ(f["largest_single"]["stopped_by"], "time_limit") << f.dump();
        EXPECT_LT(f["held_at_once"]["bytes"].get<std::uint64_t>(), 64 * MiB);
        EXPECT_EQ(f["limit_found"], false);
        EXPECT_TRUE(first_try(f).empty()) << "the held phase did not reach the cap";
    }
    EXPECT_TRUE(has(o.process.output, "the time limit stopped it at")) << o.process.output;
    EXPECT_TRUE(has(o.process.output, "the real limit is higher")) << o.process.output;
}

// The seconds the progress line gave `family`'s held phase ("..., held at once in chunks (up to
// 1 GiB, 0.48 s)"), or -1.
double held_share_s(const std::string& output, const std::string& family) {
    const std::string head = family + ", held at once in chunks (up to ";
    const auto at = output.find(head);
    if (at == std::string::npos) return -1;
    const auto comma = output.find(", ", at + head.size());
    return comma == std::string::npos ? -1 : std::stod(output.substr(comma + 2));
}

// Under --held-only the time limit is shared by the two held phases that run: the first gets half
// of what is left after the environment (a full run's first gets a quarter: at most 0.5 s of 2 s,
// where held-only's is above it while the environment takes less than 1 s), and each still stops
// on its share.
TEST_F(DoubleBudget, HeldOnlySharesTheTimeLimitBetweenTheHeldPhases) {
    const std::string script = priced("pin_delay_ms = 400\n");
    const Outcome o = budget(script, {"--cap", "1GiB", "--time-limit", "2", "--held-only"});
    ASSERT_EQ(o.process.exit_code, 0) << o.process.output;
    const double first = held_share_s(o.process.output, "cudaMallocHost");
    EXPECT_GT(first, 0.5) << o.process.output;
    EXPECT_LE(first, 1.0) << o.process.output;
    for (const char* name : {"cudaMallocHost", "cudaHostRegister"}) {
        SCOPED_TRACE(name);
        const json& f = o.family(name);
        EXPECT_EQ(f["held_at_once"]["stopped_by"], "time_limit") << f.dump();
        EXPECT_EQ(f["largest_single"]["stopped_by"], "not_measured") << f.dump();
    }
    const Outcome full = budget(script, {"--cap", "1GiB", "--time-limit", "2"});
    ASSERT_EQ(full.process.exit_code, 0) << full.process.output;
    const double full_first = held_share_s(full.process.output, "cudaMallocHost");
    EXPECT_GT(full_first, 0) << full.process.output;
    EXPECT_LE(full_first, 0.5) << full.process.output;
}

// After one failed pin every later one fails: both phases see it, and the bisection that would
// only fail again is not run.
TEST_F(DoubleBudget, AFailureThatPoisonsTheProcessIsNamed) {
    const Outcome o = budget(priced("pin_limit = 90MiB\npoison_after_failure = on\n"), {"--cap", "1GiB"});
    ASSERT_EQ(o.process.exit_code, 0) << o.process.output;
    for (const char* name : {"cudaMallocHost", "cudaHostRegister"}) {
        SCOPED_TRACE(name);
        const json& f = o.family(name);
        EXPECT_EQ(f["failure"], "poisons");
        EXPECT_EQ(f["largest_single"]["bytes"], 64 * MiB) << "doubling only: 128 MiB failed and poisoned";
        EXPECT_EQ(f["phases"]["single"]["data"]["bisection_skipped"], "the failure poisoned this process");
        EXPECT_EQ(f["phases"]["single"]["data"]["failure_check"]["ok"], false);
        EXPECT_EQ(f["phases"]["held"]["data"]["failure_check"]["verdict"], "poisons");
        EXPECT_EQ(f["held_at_once"]["bytes"], 88 * MiB);
    }
    EXPECT_TRUE(has(o.process.output, "POISONS")) << o.process.output;
}

// cuMemHostAlloc "succeeds" above 40 MiB held without pinning: the driver's own queries show it,
// the budget stops below it; cudaHostRegister is untouched and reaches the cap.
TEST_F(DoubleBudget, ASilentFallbackIsCaughtThroughTheDriver) {
    const Outcome o = budget(priced("fallback_above.cuMemHostAlloc = 40MiB\n"), {"--cap", "64MiB"});
    ASSERT_EQ(o.process.exit_code, 0) << o.process.output;
    const json& f = o.family("cudaMallocHost");
    EXPECT_EQ(f["silent_fallback"], true);
    EXPECT_EQ(f["held_at_once"]["stopped_by"], "silent_fallback");
    EXPECT_EQ(f["held_at_once"]["bytes"], 40 * MiB);
    EXPECT_EQ(f["largest_single"]["stopped_by"], "silent_fallback");
    EXPECT_EQ(f["largest_single"]["bytes"], 40 * MiB);
    EXPECT_TRUE(has(f["held_at_once"]["words"].get<std::string>(), "cuPointerGetAttribute")) << f.dump();
    EXPECT_EQ(f["failure"], "not_seen") << "no call failed";
    EXPECT_TRUE(first_try(f).empty()) << "no cap at once after a silent fallback";
    const json& r = o.family("cudaHostRegister");
    EXPECT_EQ(r["silent_fallback"], false);
    EXPECT_EQ(r["held_at_once"]["stopped_by"], "cap");
    EXPECT_EQ(tried_bytes(r), std::vector<std::uint64_t>{64 * MiB}) << "the cap at once";
    EXPECT_TRUE(has(o.process.output, "SILENT FALLBACK")) << o.process.output;
}

// More kept free than the host has: nothing is asked for, and the answer says why.
TEST_F(DoubleBudget, LowAvailableHostMemoryStopsBeforeAskingForIt) {
    const Outcome o = budget(priced(""), {"--cap", "1GiB", "--keep-free", "60TiB"});
    ASSERT_EQ(o.process.exit_code, 0) << o.process.output;
    for (const char* name : {"cudaMallocHost", "cudaHostRegister"}) {
        const json& f = o.family(name);
        EXPECT_EQ(f["held_at_once"]["stopped_by"], "host_available");
        EXPECT_EQ(f["largest_single"]["stopped_by"], "host_available");
        EXPECT_EQ(f["held_at_once"]["bytes"], 0);
        EXPECT_EQ(f["largest_single"]["bytes"], 0);
        EXPECT_TRUE(f["phases"]["single"]["data"]["tried"].empty()) << "nothing was asked for";
        EXPECT_EQ(f["safe_budget"], 0);
    }
    EXPECT_TRUE(has(o.process.output, "available host memory minus --keep-free")) << o.process.output;
}

// --held-only: only the held phase of each family runs, and everything the full run reads from
// it is the same (a limit of 90 MiB held: 88 MiB, the failure check's verdict, the safe budget of
// 64 MiB and its VRAM cost); the largest single pin is not measured (bytes null, never 0).
TEST_F(DoubleBudget, HeldOnlyRunsTheHeldPhasesAloneAndGivesTheSameBudget) {
    const std::string script = priced("pin_limit = 90MiB\n");
    const Outcome full = budget(script, {"--cap", "100MiB"});
    const Outcome held = budget(script, {"--cap", "100MiB", "--held-only"});
    ASSERT_EQ(full.process.exit_code, 0) << full.process.output;
    ASSERT_EQ(held.process.exit_code, 0) << held.process.output;
    EXPECT_EQ(full.doc["options"]["held_only"], false);
    EXPECT_EQ(held.doc["options"]["held_only"], true);
    EXPECT_EQ(held.doc["complete"], true);
    for (const char* name : {"cudaMallocHost", "cudaHostRegister"}) {
        SCOPED_TRACE(name);
        const json& f = held.family(name);
        const json& g = full.family(name);
        ASSERT_EQ(f["status"], "ok") << f.dump();
        std::vector<std::string> phases;
        for (const auto& [phase, record] : f["phases"].items()) phases.push_back(phase);
        EXPECT_EQ(phases, std::vector<std::string>{"held"});
        EXPECT_TRUE(f["largest_single"]["bytes"].is_null()) << f["largest_single"].dump();
        EXPECT_EQ(f["largest_single"]["stopped_by"], "not_measured");
        EXPECT_EQ(f["largest_single"]["words"],
                  "not measured (--held-only; pinbench budget without it measures it)");
        EXPECT_EQ(f["safe_budget"], 64 * MiB);
        for (const char* same : {"safe_budget", "held_at_once", "vram_cost_at_budget", "limit_found",
                                 "failure", "silent_fallback", "device_free_residual"}) {
            EXPECT_EQ(f[same], g[same]) << same;
        }
        EXPECT_TRUE(f["pin_s_per_gib"].is_number());
    }
    EXPECT_EQ(held.doc["safe_budget"], full.doc["safe_budget"]);
    EXPECT_TRUE(has(held.process.output, "safe budget: 64 MiB")) << held.process.output;
    EXPECT_TRUE(has(held.process.output,
                    "largest single pin: not measured (--held-only; pinbench budget without it measures it)"))
        << held.process.output;
    EXPECT_FALSE(has(held.process.output, ", largest single pin (")) << "no single phase was announced";
    EXPECT_TRUE(has(full.process.output, ", largest single pin (")) << full.process.output;
}

// The processes that initialise the driver under --held-only, counted by the double (its
// fail_call counts calls over every process of the test): the environment's and one held phase
// per family, three in all. The third cuInit is cudaHostRegister's held phase (it fails, that
// family is waived); a fourth is never made (all answer). The full run's third is
// cudaMallocHost's single phase.
TEST_F(DoubleBudget, HeldOnlyStartsNoSinglePhaseChild) {
    for (const int nth : {3, 4}) {
        SCOPED_TRACE(nth);
        const std::string script =
            priced("pin_limit = 90MiB\nfail_call.cuInit = " + std::to_string(nth) + "\n");
        const Outcome o = budget(script, {"--cap", "100MiB", "--held-only"});
        ASSERT_EQ(o.process.exit_code, 0) << o.process.output;
        EXPECT_EQ(o.family("cudaMallocHost")["status"], "ok") << o.family("cudaMallocHost").dump();
        EXPECT_EQ(o.family("cudaHostRegister")["status"], nth == 3 ? "waived" : "ok")
            << o.family("cudaHostRegister").dump();
    }
    const Outcome full = budget(priced("pin_limit = 90MiB\nfail_call.cuInit = 4\n"), {"--cap", "100MiB"});
    ASSERT_EQ(full.process.exit_code, 0) << full.process.output;
    EXPECT_EQ(full.family("cudaMallocHost")["status"], "ok");
    EXPECT_EQ(full.family("cudaHostRegister")["status"], "waived") << "the full run starts a fourth";
}

// SIGTERM while a child holds pins: the child is ended with everything it pinned, the parent
// writes what it has, marked incomplete, and exits 128+15.
TEST_F(DoubleBudget, ASignalEndsTheChildAndLeavesAnIncompleteDocument) {
    const std::string conf = dir_.file("slow.conf"), out = dir_.file("interrupted.json");
    std::ofstream(conf) << priced("pin_delay_ms = 200\n");
    const char* old = std::getenv("LD_LIBRARY_PATH");
    std::string libs = std::string(PINBENCH_DRIVER_DOUBLE_DIR) + "/current";
    if (old != nullptr && *old != '\0') libs += std::string(":") + old;
    Subprocess p(
        {PINBENCH_EXE, "budget", "-o", out, "--chunk", "8MiB", "--cap", "1GiB", "--time-limit", "40"},
        {{"LD_LIBRARY_PATH", libs}, {"PINBENCH_DRIVER_DOUBLE", conf}});
    std::this_thread::sleep_for(2s);  // the first family's phases are pinning
    ASSERT_EQ(::kill(static_cast<pid_t>(p.pid()), SIGTERM), 0);
    const auto t0 = std::chrono::steady_clock::now();
    const ProcessOutcome o = p.wait(30s);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 10s) << "it stopped at once";
    EXPECT_EQ(o.exit_code, 128 + SIGTERM) << o.output;
    std::ifstream in(out);
    ASSERT_TRUE(in) << o.output;
    std::stringstream text;
    text << in.rdbuf();
    const json doc = json::parse(text.str());
    EXPECT_EQ(doc["complete"], false);
    EXPECT_EQ(doc["interrupted"]["signal"], "SIGTERM");
    EXPECT_TRUE(has(o.output, "interrupted (SIGTERM)")) << o.output;
}

// A fake root (docs/test-double.md, PINBENCH_MEMORY_ROOT) with a 64 GiB host, 60 GiB available,
// and the files of one cgroup tree; the double charges each pin to the groups of `charged`.
class FakeTree {
public:
    explicit FakeTree(const testing_support::TempDir& dir, const std::string& name) : root_(dir.file(name)) {
        put("proc/meminfo", "MemTotal: 67108864 kB\nMemAvailable: 62914560 kB\n");
    }
    void put(const std::string& path, const std::string& text) const {
        const std::filesystem::path p = std::filesystem::path(root_) / path;
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p) << text;
    }
    std::string get(const std::string& path) const {
        std::ifstream in(std::filesystem::path(root_) / path);
        std::stringstream text;
        text << in.rdbuf();
        return text.str();
    }
    std::string path(const std::string& p) const { return (std::filesystem::path(root_) / p).string(); }
    std::map<std::string, std::string> env() const { return {{"PINBENCH_MEMORY_ROOT", root_}}; }
    // A v2 group's files: its limit, what the rest of the group uses, no OOM yet.
    void v2_group(const std::string& folder, std::uint64_t max, std::uint64_t current) const {
        put(folder + "/memory.max", std::to_string(max) + "\n");
        put(folder + "/memory.high", "max\n");
        put(folder + "/memory.current", std::to_string(current) + "\n");
        put(folder + "/memory.stat", "anon 0\nfile 0\ninactive_file 0\n");
        put(folder + "/memory.events", "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n");
    }
    std::uint64_t number(const std::string& file) const { return std::stoull(get(file)); }

private:
    std::string root_;
};

const char* kV2Mount = "30 25 0:26 / /sys/fs/cgroup rw,nosuid,nodev - cgroup2 cgroup2 rw,nsdelegate\n";

// Every pin the document records was no larger than what the limits allowed when it was asked
// ("allowed"), and each had that figure.
void expect_pins_within_allowed(const json& family) {
    for (const auto& [phase, record] : family["phases"].items()) {
        const json& data = record["data"];
        for (const char* list : {"chunks", "tried"}) {
            for (const json& pin : data.value(list, json::array())) {
                ASSERT_TRUE(pin.contains("allowed")) << phase << " " << pin.dump();
                EXPECT_LE(pin["bytes"].get<std::uint64_t>(), pin["allowed"].get<std::uint64_t>())
                    << phase << " " << pin.dump();
            }
        }
    }
}

// A container's cgroup v2 group (its namespace's root, as Docker and Podman make it) of 640 MiB,
// 100 MiB of it used by a neighbour; the double charges every pin to it and is the OOM killer
// above its limit (as the H200 saw: "child crashed (signal 9)" under pinbench 0.x). The search
// stays 64 MiB (--keep-free) below the group's limit, names the limit, wakes no OOM killer.
TEST_F(DoubleBudget, InsideAContainerTheRequestsStayUnderTheGroupsRoomLessTheMargin) {
    const FakeTree tree(dir_, "container");
    tree.put("proc/self/cgroup", "0::/\n");
    tree.put("proc/self/mountinfo", kV2Mount);
    tree.v2_group("sys/fs/cgroup", 640 * MiB, 100 * MiB);
    const std::string script = priced("memory_cgroup = " + tree.path("sys/fs/cgroup") + "\n");
    const Outcome o = budget(script, {"--cap", "1GiB", "--keep-free", "64MiB"}, tree.env());
    ASSERT_EQ(o.process.exit_code, 0) << o.process.output;
    EXPECT_EQ(o.doc["version"], kBudgetVersion);
    EXPECT_EQ(tree.get("sys/fs/cgroup/memory.events"),
              "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\noom_group_kill 0\n")
        << "the OOM killer never woke";
    EXPECT_LE(tree.number("sys/fs/cgroup/memory.peak"), 640 * MiB - 64 * MiB)
        << "the group never came nearer";
    EXPECT_EQ(tree.number("sys/fs/cgroup/memory.current"), 100 * MiB) << "everything pinned was given back";
    const std::string words = "the container's limit, 640 MiB, 100 MiB in use (cgroup v2 /, memory.max)";
    EXPECT_EQ(o.doc["limits"]["bounding"]["words"], words);
    EXPECT_EQ(o.doc["limits"]["bounding"]["allowed"], 476 * MiB);
    EXPECT_TRUE(has(o.process.output, "bounded by " + words)) << o.process.output;
    for (const char* name : {"cudaMallocHost", "cudaHostRegister"}) {
        SCOPED_TRACE(name);
        const json& f = o.family(name);
        ASSERT_EQ(f["status"], "ok") << f.dump();
        expect_pins_within_allowed(f);
        EXPECT_EQ(f["held_at_once"]["bytes"], 472 * MiB) << "476 MiB in whole 8 MiB chunks";
        EXPECT_EQ(f["held_at_once"]["stopped_by"], "memory_limit");
        EXPECT_EQ(
            f["held_at_once"]["words"],
            "the container's limit, 640 MiB, 572 MiB in use (cgroup v2 /, memory.max), less 64 MiB kept "
            "free: stopped at 472 MiB");
        EXPECT_EQ(f["bounded_by"]["kind"], "cgroup_v2");
        EXPECT_EQ(f["bounded_by"]["name"], "the container's limit");
        EXPECT_EQ(f["largest_single"]["bytes"], 472 * MiB);
        EXPECT_EQ(f["largest_single"]["stopped_by"], "memory_limit");
        EXPECT_EQ(f["limit_found"], false);
        EXPECT_EQ(f["failure"], "not_seen");
        EXPECT_EQ(f["safe_budget"], 376 * MiB);
    }
    // The default margin: a quarter of the 540 MiB room at the start (4 GiB would be all of it).
    tree.put("sys/fs/cgroup/memory.peak", "0\n");
    const Outcome d = budget(script, {"--cap", "1GiB", "--held-only"}, tree.env());
    ASSERT_EQ(d.process.exit_code, 0) << d.process.output;
    EXPECT_EQ(d.doc["options"]["keep_free"], 135 * MiB);
    EXPECT_EQ(d.family("cudaMallocHost")["held_at_once"]["bytes"], 400 * MiB);
    EXPECT_LE(tree.number("sys/fs/cgroup/memory.peak"), 640 * MiB - 135 * MiB);
    EXPECT_TRUE(has(tree.get("sys/fs/cgroup/memory.events"), "oom_kill 0\n"));
}

// Slurm's cgroup v1 tree: the job's group (1 GiB) under the user's (600 MiB, 200 MiB used by
// another job), both charged by every pin. The user's group, above, is the smaller room and bounds
// the search; both are in the document.
TEST_F(DoubleBudget, ALimitAboveThisProcesssGroupBoundsItInCgroupV1) {
    const FakeTree tree(dir_, "slurm");
    tree.put("proc/self/cgroup", "7:memory:/slurm/uid_1000/job_42\n3:cpu,cpuacct:/slurm/uid_1000/job_42\n");
    tree.put("proc/self/mountinfo",
             "33 25 0:29 / /sys/fs/cgroup/memory rw,nosuid - cgroup cgroup rw,memory\n");
    const std::string user = "sys/fs/cgroup/memory/slurm/uid_1000", job = user + "/job_42";
    tree.put(user + "/memory.limit_in_bytes", std::to_string(600 * MiB));
    tree.put(user + "/memory.usage_in_bytes", std::to_string(200 * MiB));
    tree.put(job + "/memory.limit_in_bytes", std::to_string(1 * GiB));
    tree.put(job + "/memory.usage_in_bytes", "0");
    for (const std::string& g : {user, job})
        tree.put(g + "/memory.oom_control", "oom_kill_disable 0\nunder_oom 0\noom_kill 0\n");
    tree.put("sys/fs/cgroup/memory/slurm/memory.limit_in_bytes", "9223372036854771712");
    const Outcome o = budget(priced("memory_cgroup = " + tree.path(job) + "," + tree.path(user) + "\n"),
                             {"--cap", "1GiB", "--keep-free", "64MiB", "--held-only"}, tree.env());
    ASSERT_EQ(o.process.exit_code, 0) << o.process.output;
    ASSERT_EQ(o.doc["limits"]["read"].size(), 3u) << o.doc["limits"].dump();
    EXPECT_EQ(
        o.doc["limits"]["read"][1]["words"],
        "the Slurm job's limit, 1 GiB, 0 B in use (cgroup v1 /slurm/uid_1000/job_42, memory.limit_in_bytes)");
    EXPECT_EQ(o.doc["limits"]["read"][2]["where"], "/slurm/uid_1000");
    EXPECT_EQ(o.doc["limits"]["bounding"]["index"], 2);
    for (const char* name : {"cudaMallocHost", "cudaHostRegister"}) {
        SCOPED_TRACE(name);
        const json& f = o.family(name);
        ASSERT_EQ(f["status"], "ok") << f.dump();
        expect_pins_within_allowed(f);
        EXPECT_EQ(f["held_at_once"]["bytes"], 336 * MiB) << "600 - 200 - 64 MiB";
        EXPECT_EQ(f["held_at_once"]["stopped_by"], "memory_limit");
        EXPECT_EQ(f["bounded_by"]["where"], "/slurm/uid_1000");
    }
    EXPECT_LE(tree.number(user + "/memory.max_usage_in_bytes"), 600 * MiB - 64 * MiB);
    EXPECT_TRUE(has(tree.get(user + "/memory.oom_control"), "oom_kill 0\n"));
}

// A neighbour of the group grows by 500 MiB while the first held phase pins (the double grows it
// just before the 10th pinning call): the group's limit is passed, its OOM killer ends the child.
// The budget says so, never as a driver's limit, and exits 3; the next family's search sees the
// room gone and asks for nothing.
TEST_F(DoubleBudget, AnOomKillIsReportedAsTheGroupsNeverAsTheDrivers) {
    const FakeTree tree(dir_, "oom");
    tree.put("proc/self/cgroup", "0::/job\n");
    tree.put("proc/self/mountinfo", kV2Mount);
    tree.v2_group("sys/fs/cgroup/job", 640 * MiB, 100 * MiB);
    const std::string script = priced("memory_cgroup = " + tree.path("sys/fs/cgroup/job") +
                                      "\nneighbour_grows = 500MiB\nneighbour_grows_at = 10\n");
    const Outcome o = budget(script, {"--cap", "1GiB", "--keep-free", "64MiB", "--held-only"}, tree.env());
    EXPECT_EQ(o.process.exit_code, 3) << o.process.output;
    const json& killed = o.family("cudaMallocHost");
    EXPECT_EQ(killed["status"], "failed");
    EXPECT_EQ(
        killed["error"],
        "killed by the OOM killer of cgroup /job at 80 MiB (holding 72 MiB, asking for 8 MiB more): the "
        "group's memory ran out, not the driver's pins");
    EXPECT_EQ(killed["phases"]["held"]["oom_events"],
              json::parse(R"([{"where": "/job", "oom": 1, "oom_kill": 1}])"));
    EXPECT_FALSE(killed["phases"]["held"].contains("disturbed")) << "the killed child's own device memory";
    const json& next = o.family("cudaHostRegister");
    EXPECT_EQ(next["held_at_once"]["stopped_by"], "memory_limit");
    EXPECT_EQ(next["held_at_once"]["bytes"], 0);
    EXPECT_EQ(o.doc["limits"]["oom_events"], json::parse(R"([{"where": "/job", "oom": 1, "oom_kill": 1}])"));
    EXPECT_TRUE(has(o.process.output, "OOM KILLER: in cgroup /job")) << o.process.output;
    EXPECT_FALSE(has(o.process.output, "child crashed")) << o.process.output;
}

// RLIMIT_AS set before pinbench starts (ulimit -v, as prlimit --as): each request stays under the
// child's own address-space room less the driver's slack, and the limit is named; no pin fails.
TEST_F(DoubleBudget, AnAddressSpaceLimitBoundsTheRequestsAndIsNamed) {
    const Outcome o = budget(priced(""), {"--cap", "4GiB", "--held-only"}, {}, "ulimit -v 1228800");
    ASSERT_EQ(o.process.exit_code, 0) << o.process.output;
    for (const char* name : {"cudaMallocHost", "cudaHostRegister"}) {
        SCOPED_TRACE(name);
        const json& f = o.family(name);
        ASSERT_EQ(f["status"], "ok") << f.dump();
        expect_pins_within_allowed(f);
        EXPECT_EQ(f["held_at_once"]["stopped_by"], "address_space");
        EXPECT_EQ(f["bounded_by"]["kind"], "rlimit_as");
        EXPECT_EQ(f["failure"], "not_seen") << "no call ran into the limit";
        EXPECT_GE(f["held_at_once"]["bytes"].get<std::uint64_t>(), 512 * MiB);
        EXPECT_LT(f["held_at_once"]["bytes"].get<std::uint64_t>(), 1200 * MiB - 64 * MiB);
        EXPECT_TRUE(
            has(f["held_at_once"]["words"].get<std::string>(), "the address-space limit, 1.172 GiB, "))
            << f["held_at_once"].dump();
    }
}

// cuInit runs out of memory under an address-space limit (as CUDA 13 does under prlimit --as
// 12 GiB on the H200): the family's error names the limit, never "no GPU".
TEST_F(DoubleBudget, CudaThatCannotStartUnderTheLimitIsNamedNotNoGpu) {
    const Outcome o =
        budget(priced("fail_call.cuInit = 2\n"), {"--cap", "64MiB", "--held-only"}, {}, "ulimit -v 1228800");
    EXPECT_EQ(o.process.exit_code, 3) << o.process.output;
    const json& f = o.family("cudaMallocHost");
    EXPECT_EQ(f["status"], "failed") << f.dump();
    const std::string error = f.value("error", "");
    EXPECT_EQ(error.rfind("CUDA could not start under the address-space limit, 1.172 GiB, ", 0), 0u) << error;
    EXPECT_TRUE(has(error, "cuInit failed: CUDA_ERROR_OUT_OF_MEMORY")) << error;
    EXPECT_FALSE(has(o.process.output, "this machine has 0")) << o.process.output;
}

TEST_F(DoubleBudget, BadOptionsAreRefusedBeforeAnythingIsPinned) {
    const std::vector<std::vector<std::string>> cases = {
        {"--cap", "-1GiB"},
        {"--cap", "0GiB"},
        {"--cap", "100TiB"},
        {"--cap", "lots"},
        {"--chunk", "1MiB"},
        {"--keep-free", "1PiB"},
        {"--time-limit", "nan"},
        {"--time-limit", "-5"},
        {"--time-limit", "0"},
        {"--time-limit", "1e400"},
        {"--cap", "512MiB", "--chunk", "1GiB"},
    };
    for (const auto& c : cases) {
        SCOPED_TRACE(c[0] + " " + c[1]);
        std::vector<std::string> args{PINBENCH_EXE, "budget"};
        args.insert(args.end(), c.begin(), c.end());
        // The real driver path, no double: a refusal must come before any of it.
        Subprocess p(args, {{"PINBENCH_DRIVER_DOUBLE", dir_.file("absent.conf")}});
        const ProcessOutcome out = p.wait(30s);
        EXPECT_EQ(out.exit_code, 2) << out.output;
        std::istringstream lines(out.output);
        std::string first;
        std::getline(lines, first);
        EXPECT_TRUE(has(first, c[c.size() - 2])) << "the first line names the option\n" << out.output;
        EXPECT_EQ(out.output, first + "\n") << "one line";
        EXPECT_FALSE(has(out.output, "pinbench budget: the environment")) << "nothing started\n"
                                                                          << out.output;
    }
}

}  // namespace
}  // namespace pinbench
