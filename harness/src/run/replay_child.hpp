// The replay backend's child: re-emits one recorded repeat of a real results file, transformed
// by a script. Injected crashes and hangs really happen in this process, so the parent's
// handling of them is exercised exactly as for a real measurement.
#pragma once

#include <nlohmann/json.hpp>

#include "pinbench/results/results.hpp"

namespace pinbench {

// request["replay"] = {"source": results path, "script": script path or ""}; run_id, repeat,
// attempt. A disturbance injection sets *injected_watch to the trace the parent is to judge.
RepeatRecord replay_repeat(const nlohmann::json& request, nlohmann::json* injected_watch);

}  // namespace pinbench
