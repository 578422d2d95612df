// Scenario kinds and their parameters (docs/kinds.md): the one table the scenario parser
// validates `params:` against and the plan expands axis parameters from.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench {

enum class ParamType {
    size,     // bytes with a unit; stored as integer bytes
    integer,  // YAML integer >= min
    number,   // YAML number >= min (or > min)
    choice,   // one of `choices`; stored as the name
};

// "Only where parameter `param` is (or, for an axis, includes) `value`"; an empty param: always.
struct Condition {
    std::string_view param;
    std::string_view value;
    bool always() const { return param.empty(); }
};

struct ParamSpec {
    std::string_view name;
    ParamType type = ParamType::integer;
    bool axis = false;      // one value or a list; a list multiplies the runs
    bool required = false;  // where it applies; otherwise `fallback` (null: none) is used
    nlohmann::json fallback;
    double min = 0;              // integer and number
    bool min_exclusive = false;  // number: greater than min, not at least min
    std::vector<std::string_view> choices;
    Condition when;                       // where the parameter applies; given elsewhere it is an error
    std::string_view one_of_group;        // parameters sharing a group: exactly one is given where they apply
    std::string_view not_above;           // a size parameter this one may not exceed
    bool is_run_size = false;             // the run's size; the scenario's `size` key is then not used
    std::vector<std::string_view> words;  // size: names accepted instead of a size, stored as the name
};

struct KindSpec {
    std::string_view name;
    int since_version = 2;          // the scenario schema version that introduced it
    std::vector<ParamSpec> params;  // the order of docs/kinds.md: axis parameters expand in this order
    std::optional<Condition> host_register_only;  // where every api must be a cudaHostRegister spelling
};

// Every kind, in the order of docs/kinds.md.
const std::vector<KindSpec>& kind_specs();
const KindSpec* find_kind(std::string_view name);
const ParamSpec* find_param(const KindSpec& kind, std::string_view name);

// True where `c` holds for `params` (a parameter's value, or any entry of an axis list).
bool applies(const Condition& c, const nlohmann::json& params);

// A parameter value as written in run ids: sizes as size_label ("2MiB"), numbers as %g.
std::string param_label(const ParamSpec& p, const nlohmann::json& value);

// The sizes a sweep's size_curve measures: start, then start + step (or x factor, rounded up)
// while at most stop, and no more than `limit` of them. The parser refuses a curve of more than
// max_size_curve_points (pinbench/scenario.hpp); the sweep kind measures exactly these.
std::vector<std::uint64_t> size_curve_sizes(std::uint64_t start, std::uint64_t stop, std::uint64_t step,
                                            double factor, std::size_t limit);

}  // namespace pinbench
