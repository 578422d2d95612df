// A scenario's `params` read against its kind's parameter table (docs/kinds.md;
// scenario/kind_spec.hpp, each kind's table in kinds/<kind>.cpp): types, defaults, the table's
// cross-field rules (conditions, one-of groups, not_above), the kind's own rule
// (KindSpec::check_params), the register-only apis, and the run's size.
#pragma once

#include "scenario/scenario_draft.hpp"
#include "scenario/scenario_values.hpp"

namespace pinbench {

// Fills d.s.params (an axis parameter as a list of its values) and, where a parameter is the
// run's size (a sweep's stop or cap), d.s.sizes; else the scenario's own `size` must be given.
// `own_size`: the scenario sets `size` itself, not through defaults.
void read_kind_params(const ScenarioValues& values, Draft& d, const YAML::Mark& scenario_mark, bool own_size);

}  // namespace pinbench
