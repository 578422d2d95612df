// The kinds' own metrics (docs/kinds.md): each kind derives them in its file (KindSpec::derive,
// scenario/kind_spec.hpp) from the ok repeats' snapshots and data, with what is shared here.
// Pure functions: the replay backend recomputes them exactly.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pinbench/results/results.hpp"
#include "pinbench/results/run_metrics.hpp"
#include "results/snapshot_cost.hpp"

namespace pinbench {

using OkRepeats = std::vector<const RepeatRecord*>;

inline constexpr double bytes_per_gib = 1024.0 * 1024 * 1024;

// One sample per repeat, or nothing when any repeat lacks it: a metric over fewer repeats
// than the run has would hide the gap.
std::optional<std::vector<double>> per_repeat(
    const OkRepeats& ok, const std::function<std::optional<double>(const RepeatRecord&)>& f);

// The memory keys worth a metric: every non-fixed key seen in any ok repeat.
std::set<std::string> memory_keys(const OkRepeats& ok);

// A number of a repeat's `data`, or nothing when absent or not a number.
std::optional<double> data_number(const nlohmann::json& data, const char* name);

// Where a kind's derivation writes its metrics, summarised, with the key's granule. A metric's
// unit is its catalog entry's (pinbench/results/metric_catalog.hpp): written once, in the kind's table.
class MetricSink {
public:
    MetricSink(std::string kind, const Granules& g, std::map<std::string, MetricSummary>& m)
        : kind_(std::move(kind)), granules_(g), metrics_(m) {}

    // Throws std::logic_error for a metric the catalog does not list for this kind (a bug).
    void put(const std::string& name, std::optional<std::vector<double>> samples,
             const std::string& key = {});
    // For each memory key: `prefix.<key>` from snapshot `from` to `to`, divided by `divisor`.
    void costs(const OkRepeats& ok, const std::string& prefix, const std::string& from, const std::string& to,
               double divisor = 1);

private:
    std::string kind_;
    const Granules& granules_;
    std::map<std::string, MetricSummary>& metrics_;
};

// Adds the kind's own metrics of `run` (over `ok`, its ok repeats) to `metrics`.
void add_kind_metrics(const RunRecord& run, const OkRepeats& ok, const Granules& granules,
                      std::map<std::string, MetricSummary>& metrics);

}  // namespace pinbench
