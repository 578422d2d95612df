// A scenario's `expect` claims (docs/scenario-format.md): per driver model, limits on the
// overhead ratio and bytes and on any kind's metrics, judged by the verdict stage on the run's
// median. A metric name is checked by the caller's MetricNameCheck (pinbench/scenario/scenario.hpp).
#pragma once

#include "pinbench/scenario/scenario.hpp"
#include "scenario/scenario_draft.hpp"
#include "scenario/scenario_values.hpp"

namespace pinbench {

// Reads `expect` (the field `f`) into d.s.expect and d.expect_marks.
void read_expect(const ScenarioValues& values, Draft& d, const Field& f, MetricNameCheck check_metric);

// Once the scenario's keys are read: each expect entry's driver model is one the scenario runs
// on (any, where it names no driver_models).
void check_expect_models(const ScenarioValues& values, const Draft& d);

}  // namespace pinbench
