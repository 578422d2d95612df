// The parent side of `pinbench run`: controls first, then every planned run, each repeat in a
// fresh child process; the results file is rewritten atomically after every run, so an
// interrupted invocation keeps every finished run.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "pinbench/plan.hpp"
#include "run/controls.hpp"
#include "run/watched_attempt.hpp"

namespace pinbench {

struct RunOptions {
    std::string executable;  // this program, for the children
    std::string results_path;
    std::vector<std::string> command;  // as typed, for the record
    std::string replay_source;         // non-empty: replay backend
    std::string replay_script;         // optional with replay
    ControlOptions controls;
    WatchOptions watch;  // the device watch and what a disturbance costs (docs/disturbance.md)
    std::chrono::milliseconds device_wait_limit{15000};
    bool allow_busy_gpu = false;              // measure even beside a leftover pinbench process
    bool keep_going_when_busy = false;        // do not stop when a neighbour keeps the GPU busy
    const ResultsDocument* resume = nullptr;  // --resume: the partial file being continued
    std::string resume_path;
    std::ostream* progress = nullptr;  // stderr in the CLI
};

// Returns the exit code: 0 when every run ended ok or waived and every control passed,
// exit_code::infrastructure when a control failed or a run failed, timed out or was disturbed.
int run_plan(const Plan& plan, const nlohmann::json& scenario, const RunOptions& options);

// The plan recorded in a results file (the replay backend runs it again).
Plan plan_from_results(const ResultsDocument& doc);

}  // namespace pinbench
