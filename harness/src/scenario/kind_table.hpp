// Scenario kinds and their parameters (docs/kinds.md): the one table the scenario parser
// validates `params:` against and the plan expands axis parameters from. Each kind defines its
// own (kinds/<kind>.cpp); kinds/registry.cpp lists them.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/kind_spec.hpp"

namespace pinbench {

// Every kind, in the order of docs/kinds.md (kinds/registry.cpp).
const std::vector<KindSpec>& kind_specs();
const KindSpec* find_kind(std::string_view name);
const ParamSpec* find_param(const KindSpec& kind, std::string_view name);

// True where `c` holds for `params` (a parameter's value, or any entry of an axis list).
bool applies(const Condition& c, const nlohmann::json& params);

// A parameter value as written in run ids: sizes as size_label ("2MiB"), numbers as %g.
std::string param_label(const ParamSpec& p, const nlohmann::json& value);

// The sizes a sweep's size_curve measures: start, then start + step (or x factor, rounded up)
// while at most stop, and no more than `limit` of them. The sweep kind refuses a curve of more
// than max_size_curve_points (pinbench/scenario/scenario.hpp) when the file is read (its check_params)
// and measures exactly these.
std::vector<std::uint64_t> size_curve_sizes(std::uint64_t start, std::uint64_t stop, std::uint64_t step,
                                            double factor, std::size_t limit);

}  // namespace pinbench
