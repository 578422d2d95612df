#include "results/kind_metrics.hpp"

#include <stdexcept>

#include "pinbench/results/metric_catalog.hpp"
#include "pinbench/vocabulary/units.hpp"
#include "scenario/kind_spec.hpp"
#include "scenario/kind_table.hpp"

namespace pinbench {

std::optional<std::vector<double>> per_repeat(
    const OkRepeats& ok, const std::function<std::optional<double>(const RepeatRecord&)>& f) {
    std::vector<double> out;
    for (const RepeatRecord* r : ok) {
        const auto v = f(*r);
        if (!v) return std::nullopt;
        out.push_back(*v);
    }
    return out;
}

std::set<std::string> memory_keys(const OkRepeats& ok) {
    std::set<std::string> keys;
    for (const RepeatRecord* r : ok) {
        for (const auto& s : r->snapshots) {
            for (const auto& [key, reading] : s.readings) {
                if (describe_key(key).direction != Direction::fixed) keys.insert(key);
            }
        }
    }
    return keys;
}

std::optional<double> data_number(const nlohmann::json& data, const char* name) {
    const auto it = data.find(name);
    if (it == data.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

void MetricSink::put(const std::string& name, std::optional<std::vector<double>> samples,
                     const std::string& key) {
    const MetricSpec* spec = find_metric_spec(kind_, name);
    if (spec == nullptr) {
        throw std::logic_error("kind " + kind_ + " writes " + name +
                               ", which the metric catalog does not list");
    }
    if (!samples || samples->empty()) return;
    MetricSummary m;
    m.unit = spec->unit;
    m.stats = *summarize(*samples);
    m.samples = std::move(*samples);  // in repeat order: summarize() sorts its own copy
    if (!key.empty()) {
        if (const auto g = granules_.find(key); g != granules_.end()) m.granule = g->second;
    }
    metrics_[name] = std::move(m);
}

void MetricSink::costs(const OkRepeats& ok, const std::string& prefix, const std::string& from,
                       const std::string& to, double divisor) {
    for (const std::string& key : memory_keys(ok)) {
        put(prefix + "." + key,
            per_repeat(ok,
                       [&](const RepeatRecord& r) -> std::optional<double> {
                           const auto c = snapshot_cost(r, from, to, key);
                           if (!c) return std::nullopt;
                           return *c / divisor;
                       }),
            key);
    }
}

void add_kind_metrics(const RunRecord& run, const OkRepeats& ok, const Granules& granules,
                      std::map<std::string, MetricSummary>& metrics) {
    if (ok.empty()) return;
    const KindSpec* kind = find_kind(run.run.kind);
    if (kind == nullptr || kind->derive == nullptr) return;  // overhead (or an old file without a kind)
    MetricSink sink(run.run.kind, granules, metrics);
    kind->derive(run, ok, sink);
}

}  // namespace pinbench
