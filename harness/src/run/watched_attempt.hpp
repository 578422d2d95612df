// One attempt at one repeat, watched: the parent starts its device watch, runs the child, waits
// (bounded) for device usage to come back to where it was, and judges what the watch saw
// (run/disturbance.hpp). The caller decides what a disturbance means for the run (retry, or
// status "disturbed"); docs/disturbance.md.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pinbench/cuda/nvml.hpp"
#include "pinbench/results/results.hpp"
#include "run/child_launcher.hpp"
#include "run/disturbance.hpp"

namespace pinbench {

// How the parent watches (pinbench run --watch-interval, --disturbance-retries ...).
struct WatchOptions {
    bool enabled = true;
    std::chrono::milliseconds interval{10};         // NVML poll period while a child runs
    std::chrono::milliseconds return_limit{3000};   // wait for usage to come back after the child
    int retries = 3;                                // extra attempts for a disturbed repeat
    std::chrono::milliseconds retry_budget{60000};  // retry time per run, waits included
    std::chrono::milliseconds retry_wait{1000};     // before the first retry; doubles each time
    std::chrono::milliseconds null_window{2000};    // null control window, and between runs
    std::chrono::milliseconds null_every{60000};    // a null window between runs at most this often
};

// What to watch for one run: NVML devices, and which keys judge the run.
struct WatchPlan {
    std::vector<unsigned> devices;      // NVML indices of every CUDA device the children see
    std::optional<unsigned> cuda0;      // NVML index of CUDA device 0 (cuda.free's device)
    std::set<unsigned> judged_devices;  // NVML indices of the run's GPUs (CUDA 0..gpus-1)
    std::int64_t tolerance = 0;  // a move larger than this is a disturbance (half the control tolerance)
};

// The plan from an environment record (devices[i].nvml_index): every device described,
// judged on CUDA devices 0..gpus-1.
WatchPlan watch_plan_for(const nlohmann::json& environment, int gpus, std::int64_t tolerance);

struct WatchedAttempt {
    RepeatRecord record;
    Disturbance disturbance;
    bool foreign_present = false;  // another process was on a watched device at some point
    // Why the watch had no process list ("" when it had them): it saw device usage only, so
    // foreign_present cannot be told and the caller checks the repeats' agreement instead.
    std::string no_process_list;
    long long watch_reads = 0;
    double watch_read_ms = 0;
    double return_wait_ms = 0;  // after the child ended, until device usage was back (or the limit)
};

// Runs the child for `request` under the watch (none when nvml is null or watching is off; a
// replay child's injected trace is judged the same way) and fills record.disturbance.
WatchedAttempt run_watched_attempt(ChildLauncher& launcher, const Nvml* nvml, nlohmann::json request,
                                   std::chrono::milliseconds timeout, const WatchPlan& plan,
                                   const WatchOptions& options, int index);

// A watch of the devices alone, with no child: what neighbours did in `window` (the null
// windows between runs). Evidence: any change of usage or of the process list.
Disturbance watch_quiet_window(const Nvml& nvml, const WatchPlan& plan, std::chrono::milliseconds window,
                               std::chrono::milliseconds interval, WatchTrace* trace_out = nullptr);

// Turns a child's response["injected_watch"] (replay scripts, docs/replay.md) into samples.
WatchTrace injected_trace(const nlohmann::json& injected);

// Status and evidence from the repeat, in the child's ChildLauncher::Result terms.
RepeatRecord record_from(const ChildLauncher::Result& result, int index);

}  // namespace pinbench
