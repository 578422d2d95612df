// Every metric a results file can hold (docs/kinds.md): its name pattern, the kinds that write
// it, unit, which way is worse, which memory budget its bytes are of, and whether the report
// shows it as a headline column; each kind's title and chart families in the report; each
// kind's own entries come from its definition (harness/src/kinds/<kind>.cpp). The one
// table the harness's metrics are checked against (CTest MetricCatalog.*) and that pinreport
// reads (`pinbench metrics --json`, committed as reports/pinreport/data/metric_catalog.json).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench {

inline constexpr int metric_catalog_version = 3;

struct MetricSpec {
    // Placeholders: <key> a probe key (cuda.free, nvml.0.used, dxgi.local.usage, ...), <timing> a
    // timing name, <bytes> and <k> decimal integers.
    std::string_view pattern;
    std::string_view kinds;      // "*" (every kind), or kind names separated by spaces
    std::string_view unit;       // bytes, ms, ratio, count
    std::string_view direction;  // higher_is_worse, higher_is_better, neither (shown, not compared)
    bool headline;               // a column of the kind's table in the report
    std::string_view what;
    std::string_view budget;  // dedicated, host, probe (the <key>'s own budget) or none
};

const std::vector<MetricSpec>& metric_catalog();

// The spec whose pattern matches `metric` for a run of `kind`, or nullptr.
const MetricSpec* find_metric_spec(std::string_view kind, std::string_view metric);

// Why no kind writes `metric`, with the closest catalogued name ("unknown metric 'M': no kind
// writes it; did you mean 'N'?"), or nullopt where some kind does: the check of an `expect`
// claim's metric names that the CLI hands the scenario parser (MetricNameCheck,
// pinbench/scenario/scenario.hpp). Defined in results/metric_names.cpp.
std::optional<std::string> unknown_metric_reason(std::string_view metric);

// {"metric_catalog_version": 3,
//  "kinds": [{name, report (section, optional_section, cost_and_rule), title, charts,
//  since_version, params (the parameter table: name, type, axis, required, fallback, ...),
//  allocation_costs, reservation_rule, quantum_param}] (scenario/kind_spec.hpp),
//  "probe_keys": describe_key's rule (snapshot.hpp), "trace_apis": [{api, family, effect}],
//  "trace_families": {family: [store api variants]} (cuda/traced_apis.hpp),
//  "metrics": [{pattern, kinds, unit,
//  direction, headline, what, budget}]}. Kinds in the registry's (docs/kinds.md) order.
nlohmann::json metric_catalog_json();

}  // namespace pinbench
