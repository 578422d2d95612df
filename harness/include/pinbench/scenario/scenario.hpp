// Scenario files (scenarios/*.yaml, schema version 2; version 1 is still read): a declarative
// list of experiments. Format: docs/scenario-format.md, docs/kinds.md and scenarios/schema.json.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pinbench/vocabulary/api_variant.hpp"

namespace pinbench {

inline constexpr int scenario_schema_version = 2;  // the newest version; 1 is read too

// Documented limits of a scenario file (docs/scenario-format.md "Limits"); each is refused with
// FILE:LINE:COL, never a crash or a silent cut.
inline constexpr std::uint64_t max_planned_runs = 10000;    // runs one file may expand to
inline constexpr double max_timeout_s = 7 * 24 * 3600.0;    // a repeat's timeout: one week
inline constexpr std::size_t max_size_curve_points = 4096;  // sizes of one sweep size_curve

struct SourceLocation {
    std::string file;
    int line = 0;    // 1-based
    int column = 0;  // 1-based
};

struct Scenario {
    std::string name;
    std::string kind;                  // "overhead", "capacity", ... (docs/kinds.md)
    std::vector<ApiVariant> apis;      // one or more
    std::vector<std::uint64_t> sizes;  // bytes, one or more
    std::vector<int> counts{1};        // buffers held at once
    std::vector<int> gpus{1};          // number of GPUs
    int repeats = 7;
    std::vector<std::string> driver_models;  // empty: every model; else "WDDM", "TCC", "MCDM", "linux"
    nlohmann::json expect = nlohmann::json::object();  // per driver model, checked by the verdict stage
    double timeout_s = 120;                            // per repeat
    // The kind's parameters (docs/kinds.md), defaults filled in: an axis parameter as a list of
    // its values, any other as one value (sizes as integer bytes, choices as strings). Only the
    // parameters that apply (a sweep's mode decides which); {} for `overhead`.
    nlohmann::json params = nlohmann::json::object();
    SourceLocation where;
    std::string description;  // optional free text from the file
};

struct ScenarioFile {
    std::string path;
    int schema_version = scenario_schema_version;
    std::vector<Scenario> scenarios;
};

// Why a metric name of an `expect` claim is not one that any run writes (the message, naming the
// closest one: "unknown metric 'M': no kind writes it; did you mean 'N'?"), or nullopt where some
// kind writes it. The parser locates the message at the name. The caller hands in the metric
// catalog's check (unknown_metric_reason, pinbench/results/metric_catalog.hpp): the catalog is a later
// stage, which the scenario stage does not include.
using MetricNameCheck = std::optional<std::string> (*)(std::string_view metric);

// Parses and validates a scenario file. Throws InputError ("FILE:LINE:COL: message") on YAML
// syntax errors, unknown keys, kinds or parameters, unknown apis or flags, bad units, values out
// of range, duplicate names, unknown metrics (`check_metric`, never null) and unsupported schema
// versions. Machine-dependent limits are not checked.
ScenarioFile load_scenario_file(const std::string& path, MetricNameCheck check_metric);
ScenarioFile parse_scenario_text(const std::string& text, const std::string& path_for_messages,
                                 MetricNameCheck check_metric);

nlohmann::json to_json(const Scenario& s);
// The file as a results file records it (its `scenario`: path, schema version, scenarios), and
// as `run --resume` compares it with the partial file's.
nlohmann::json to_json(const ScenarioFile& file);

}  // namespace pinbench
