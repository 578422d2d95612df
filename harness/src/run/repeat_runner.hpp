// One planned run's repeats, each in a fresh child process under the device watch: a disturbed
// attempt is retried (waiting longer each time), and where a neighbour was on the GPU or NVML
// could not say, repeats that disagree with the rest are retried too. Stops early once its clean
// repeats agree to the byte (docs/scenario-format.md, "Stopping early"), and a replay where its
// source's run stopped (docs/replay.md). Ends with the run's status, reason, disturbance and
// stopping records (docs/disturbance.md).
#pragma once

#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pinbench/cuda/nvml.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/scenario/plan.hpp"
#include "run/busy_gpu.hpp"
#include "run/child_launcher.hpp"
#include "run/progress.hpp"
#include "run/run_options.hpp"
#include "run/settle.hpp"
#include "run/watch_summary.hpp"
#include "run/watched_attempt.hpp"

namespace pinbench {

struct MeasuredRun {
    RunRecord record;        // its status, reason and disturbance set unless stopped
    nlohmann::json stopped;  // where a stop signal found the run ({run_id, repeat}); null: it did not
};

class RepeatRunner {
public:
    // `environment` names the GPUs the children see; `busy_check` is armed by a disturbed null
    // control (run/busy_gpu.hpp). `progress` and `watch` outlive the runner. `source_stops`: a
    // replay's source runs that stopped early (run/replay_child.hpp), where its replay ends too.
    RepeatRunner(ChildLauncher& launcher, const Nvml* nvml, const RunOptions& options,
                 const nlohmann::json& environment, bool per_process_judges, BusyGpuCheck busy_check,
                 Progress& progress, WatchSummary& watch, std::map<std::string, Stopping> source_stops);

    // Measures `planned`, run `index` of `runs`, judged on the devices of `plan`.
    MeasuredRun run(const PlannedRun& planned, std::size_t index, std::size_t runs, const WatchPlan& plan);

    // The devices' usage moved between runs with nothing of ours measuring (the driver holder
    // started or stopped, run/driver_hold.hpp): the next attempt first waits for it to settle and
    // takes that as the level every later attempt waits for.
    void level_moved() { level_moved_ = true; }

    // The neighbour that keeps the GPU busy, once found ("" until then): the invocation stops.
    const std::string& busy() const { return busy_; }

private:
    struct RunState;
    std::pair<bool, Status> attempt(RunState& run, int k, int number);
    RepeatRecord watched_attempt(RunState& run, int k, int number);
    void first_attempts(RunState& run, nlohmann::json& stopped);
    std::optional<std::string> stop_here(const RunState& run) const;
    void retry_outliers(RunState& run);
    void retry(RunState& run, int k);
    void conclude(RunState& run) const;

    ChildLauncher& launcher_;
    const Nvml* nvml_;
    const RunOptions& options_;
    bool replay_;
    std::map<std::string, Stopping> source_stops_;  // replay: the source's runs that stopped early
    std::vector<unsigned>
        all_devices_;           // the GPUs the children can see (CUDA_VISIBLE_DEVICES), by NVML index
    DeviceLevel baseline_;      // their usage before the first run: each attempt waits for it
                                // (read again after the driver holder started or stopped)
    bool level_moved_ = false;  // baseline_ is to be read again, once usage settles
    bool per_process_judges_;
    BusyGpuCheck busy_check_;
    std::string busy_;
    Progress& progress_;
    WatchSummary& watch_;
};

}  // namespace pinbench
