// Metrics of the scenario kinds other than overhead (docs/kinds.md), computed from the ok
// repeats' snapshots and data. Pure functions: the replay backend recomputes them exactly.
#pragma once

#include <map>
#include <string>

#include "pinbench/results.hpp"
#include "pinbench/run_metrics.hpp"

namespace pinbench {

// Adds the kind's own metrics of `run` (over `ok`, its ok repeats) to `metrics`.
void add_kind_metrics(const RunRecord& run, const std::vector<const RepeatRecord*>& ok,
                      const Granules& granules, std::map<std::string, MetricSummary>& metrics);

}  // namespace pinbench
