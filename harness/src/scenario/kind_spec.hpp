// One scenario kind as one unit (docs/kinds.md; docs/architecture.md, "Adding a kind"): its
// parameters with the rules that validate them, whether it applies on this machine, its
// measurement, its metrics and their catalog entries. Each kind is one file in this folder
// that returns its KindSpec; registry.cpp lists them. The scenario parser and the plan read the
// parameters, the parent and the child ask whether it applies, the child measures, the metric
// stage derives and the catalog (`pinbench metrics --json`) describes what it writes.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pinbench/cuda/device.hpp"

namespace pinbench {

class Nvml;
struct PlannedRun;
struct RepeatRecord;
struct RunRecord;
class MetricSink;  // results/kind_metrics.hpp

enum class ParamType {
    size,     // bytes with a unit; stored as integer bytes
    integer,  // YAML integer >= min
    number,   // YAML number >= min (or > min)
    choice,   // one of `choices`; stored as the name
    text,     // any string (a working directory)
    texts,    // a list of strings, one parameter (a command line, environment entries); never an axis
};

// "Only where parameter `param` is (or, for an axis, includes) `value`"; an empty param: always.
struct Condition {
    std::string_view param;
    std::string_view value;
    bool always() const { return param.empty(); }
};

// Not bugprone-exception-escape: nlohmann::json's destructor may allocate while it flattens
// nested values; a fallback is a scalar or a short list.
struct ParamSpec {  // NOLINT(bugprone-exception-escape)
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

// What a kind's own parameter rule refuses: the parameter to point at (its value in the file, or
// `params` where it was not given) and the message.
struct ParamFault {
    std::string_view param;
    std::string message;
};

// Which way is worse, in the catalog's words.
inline constexpr std::string_view higher_is_worse = "higher_is_worse";
inline constexpr std::string_view higher_is_better = "higher_is_better";
inline constexpr std::string_view neither_direction = "neither";  // shown, not compared

// Which memory budget a metric's bytes are of, in the catalog's words (docs/kinds.md).
inline constexpr std::string_view dedicated_budget = "dedicated";  // VRAM: what the rule is about
inline constexpr std::string_view host_budget = "host";            // host RAM (pinned bytes)
// Bytes that a probe key fills in (`<key>`): the key's own budget (describe_key, snapshot.hpp),
// dedicated or shared (DXGI NON_LOCAL, PDH shared: another budget, reported beside).
inline constexpr std::string_view probe_budget = "probe";
inline constexpr std::string_view no_budget = "none";  // times, counts, ratios

// A metric the kind writes, for the catalog (pinbench/results/metric_catalog.hpp, which adds the kind's
// name). Placeholders in `pattern`: <key> a probe key, <timing> a timing name, <bytes> and <k>
// decimal integers.
struct KindMetric {
    std::string_view pattern;
    std::string_view unit;       // bytes, ms, ratio, count
    std::string_view direction;  // one of the three above
    bool headline;               // a column of the kind's table in the report
    std::string_view what;
    // One of the budgets above; left empty it is `probe` for a pattern with <key> and `none`
    // for a unit other than bytes. Bytes without a key must say (CTest MetricCatalog.*).
    std::string_view budget = {};
};

// Where the report shows a kind (reports/pinreport/render/kind_sections.py).
enum class ReportPlace {
    section,           // a section of its own, "not measured" when a results file has no run
    optional_section,  // a section where a results file has runs, never "not measured" (a team's own)
    cost_and_rule,     // the report's cost, verdict and reservation-rule tables, no section
};

// What decides whether a kind applies here. The parent knows the device count before it starts
// a repeat; the measuring child also knows device 0's memory once its context exists.
struct Machine {
    int cuda_devices = 0;
    std::optional<MemInfo> device0;  // after this process created its context
};

struct KindSpec {
    std::string_view name;
    int since_version = 2;          // the scenario schema version that introduced it
    std::vector<ParamSpec> params;  // the order of docs/kinds.md: axis parameters expand in this order
    std::optional<Condition> host_register_only;  // where every api must be a cudaHostRegister spelling
    // A rule across the kind's parameters that the table cannot say (a sweep's size curve of at
    // most max_size_curve_points sizes), checked by the parser after the table's rules on the
    // parameters that apply, defaults filled in; nullptr: none.
    std::optional<ParamFault> (*check_params)(const nlohmann::json& params) = nullptr;
    // Its snapshots include after_alloc and after_first_use, so the generic cost.* metrics
    // (run_metrics.cpp) are its too.
    bool writes_allocation_costs = false;
    // The reservation rule (reports/pinreport/rule.py) judges its held costs.
    bool reservation_rule = false;
    // Its repeat starts other processes that open the CUDA driver (workers, the program it runs):
    // the driver holder is stopped for such a run, as beside an initialised process their costs
    // moved (run/driver_hold.hpp).
    bool starts_cuda_processes = false;
    // A size parameter that quantises its byte metrics (a block search's step): pinreport does
    // not call a difference smaller than one step a change. Empty: none.
    std::string_view quantum_param = {};
    // The reason the run cannot be measured here (it is WAIVED), beyond the GPU count every kind
    // needs (waive_reason below); nullptr: nothing more.
    std::optional<std::string> (*waive)(const PlannedRun& run, const Machine& machine) = nullptr;
    // One repeat, in the child process. Throws UnsupportedError (the repeat is WAIVED with the
    // reason), CudaError or other exceptions (the repeat FAILED).
    RepeatRecord (*measure)(const PlannedRun& run, const Nvml* nvml) = nullptr;
    // The kind's own metrics over the run's ok repeats (never empty); pure, so the replay
    // backend recomputes them exactly. nullptr: only the generic ones.
    void (*derive)(const RunRecord& run, const std::vector<const RepeatRecord*>& ok,
                   MetricSink& sink) = nullptr;
    std::vector<KindMetric> metrics;  // every metric `derive` writes, first match wins
    // The report's words for it: its section's title (what it measures, which brief claims), and
    // the chart families drawn from its runs (names registered in render/kind_sections.py).
    ReportPlace report = ReportPlace::section;
    std::string_view title;
    std::vector<std::string_view> charts;
};

// Why `run` cannot be measured on `machine` (it is WAIVED): fewer GPUs than it needs, or its
// kind's own reason (KindSpec::waive); nullopt where it can.
std::optional<std::string> waive_reason(const PlannedRun& run, const Machine& machine);

// Builders of the parameter tables.
ParamSpec size_param(std::string_view name, bool required, nlohmann::json fallback = nullptr);
ParamSpec integer_param(std::string_view name, int min, bool required, nlohmann::json fallback = nullptr);
ParamSpec number_param(std::string_view name, double min, bool exclusive, bool required,
                       nlohmann::json fallback = nullptr);
ParamSpec choice_param(std::string_view name, std::vector<std::string_view> choices, bool required,
                       nlohmann::json fallback = nullptr);
ParamSpec axis(ParamSpec p);
ParamSpec when(ParamSpec p, std::string_view param, std::string_view value);

}  // namespace pinbench
