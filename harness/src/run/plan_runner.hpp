// The parent side of `pinbench run`: controls first, then every planned run, each repeat in a
// fresh child process (run/repeat_runner.hpp); the results file is rewritten atomically after
// every run, so an interrupted invocation keeps every finished run.
#pragma once

#include <nlohmann/json.hpp>

#include "pinbench/results/results.hpp"
#include "pinbench/scenario/plan.hpp"
#include "run/run_options.hpp"

namespace pinbench {

// Returns the exit code: 0 when every run ended ok or waived and every control passed,
// exit_code::infrastructure when a control failed or a run failed, timed out or was disturbed.
int run_plan(const Plan& plan, const nlohmann::json& scenario, const RunOptions& options);

// The plan recorded in a results file (the replay backend runs it again).
Plan plan_from_results(const ResultsDocument& doc);

}  // namespace pinbench
