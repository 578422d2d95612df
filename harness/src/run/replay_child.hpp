// The replay backend's child: re-emits one recorded repeat of a real results file, transformed
// by a script. Injected crashes and hangs really happen in this process, so the parent's
// handling of them is exercised exactly as for a real measurement.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <string>

#include "pinbench/results/results.hpp"

namespace pinbench {

// request["replay"] = {"source": results path, "script": script path or ""}; run_id, repeat,
// attempt. A disturbance injection sets *injected_watch to the trace the parent is to judge.
RepeatRecord replay_repeat(const nlohmann::json& request, nlohmann::json* injected_watch);

// The runs of a replay source that stopped before their planned repeats (the stopping rule, a
// waived repeat, a busy GPU), by run id: the source has nothing past `stopped_at` to replay, so
// the replay of such a run ends there too (docs/replay.md). A run without a stopping record (an
// older file) or one that measured every planned repeat is not here: a repeat it lacks fails.
std::map<std::string, Stopping> early_stops(const ResultsDocument& source);

}  // namespace pinbench
