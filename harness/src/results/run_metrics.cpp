#include "pinbench/results/run_metrics.hpp"

#include <array>
#include <set>
#include <vector>

#include "results/kind_metrics.hpp"
#include "results/snapshot_cost.hpp"

namespace pinbench {

namespace {

constexpr const char* baseline_label = "after_context";

struct Target {
    const char* label;
    const char* prefix;
};
// What a run's memory metrics compare against the baseline, and under which name.
constexpr std::array<Target, 3> targets{{
    {"after_alloc", "cost"},
    {"after_first_use", "cost"},
    {"after_free", "residual"},
}};

// Costs of `key` from the baseline to `label`, one per repeat; empty when any repeat lacks
// either snapshot or either reading (a metric over fewer repeats would hide that).
std::optional<std::vector<double>> costs(const std::vector<const RepeatRecord*>& repeats,
                                         const std::string& label, const std::string& key) {
    std::vector<double> out;
    for (const RepeatRecord* r : repeats) {
        const auto cost = snapshot_cost(*r, baseline_label, label, key);
        if (!cost) return std::nullopt;
        out.push_back(*cost);
    }
    return out;
}

}  // namespace

std::optional<double> snapshot_cost(const RepeatRecord& r, const std::string& from, const std::string& to,
                                    const std::string& key) {
    const auto find = [&r](const std::string& label) -> const Snapshot* {
        for (const auto& s : r.snapshots) {
            if (s.label == label) return &s;
        }
        return nullptr;
    };
    const Snapshot* a = find(from);
    const Snapshot* b = find(to);
    if (a == nullptr || b == nullptr) return std::nullopt;
    const auto ra = a->readings.find(key);
    const auto rb = b->readings.find(key);
    if (ra == a->readings.end() || rb == b->readings.end()) return std::nullopt;
    const auto c = cost_between(key, ra->second, rb->second);
    if (!c) return std::nullopt;
    return static_cast<double>(*c);
}

std::map<std::string, MetricSummary> compute_run_metrics(const RunRecord& run, const Granules& granules) {
    std::vector<const RepeatRecord*> ok;
    for (const auto& r : run.repeats) {
        if (r.status == Status::ok) ok.push_back(&r);
    }
    std::map<std::string, MetricSummary> metrics;
    if (ok.empty()) return metrics;

    // Candidate keys: any key seen in any ok repeat; costs() drops those missing somewhere.
    std::set<std::string> keys;
    std::set<std::string> timing_names;
    for (const RepeatRecord* r : ok) {
        for (const auto& s : r->snapshots) {
            for (const auto& [key, reading] : s.readings) keys.insert(key);
        }
        for (const auto& [name, ms] : r->timings_ms) timing_names.insert(name);
    }

    for (const Target& t : targets) {
        for (const std::string& key : keys) {
            if (describe_key(key).direction == Direction::fixed) continue;
            auto samples = costs(ok, t.label, key);
            if (!samples) continue;
            MetricSummary m;
            m.unit = "bytes";
            m.stats = *summarize(*samples);
            m.samples = std::move(*samples);
            if (const auto g = granules.find(key); g != granules.end()) m.granule = g->second;
            metrics[std::string(t.prefix) + "." + t.label + "." + key] = std::move(m);
        }
    }

    for (const std::string& name : timing_names) {
        std::vector<double> samples;
        for (const RepeatRecord* r : ok) {
            const auto it = r->timings_ms.find(name);
            if (it == r->timings_ms.end()) break;
            samples.push_back(it->second);
        }
        if (samples.size() != ok.size()) continue;  // missing in a repeat: no metric, never a 0
        MetricSummary m;
        m.unit = "ms";
        m.stats = *summarize(samples);
        m.samples = std::move(samples);
        metrics["time." + name + "_ms"] = std::move(m);
    }
    add_kind_metrics(run, ok, granules, metrics);
    // A probe a neighbour moved in an ok repeat (its run was judged on per-process probes):
    // its metrics are kept but never judged.
    for (const RepeatRecord* r : ok) {
        if (!r->disturbance.is_object()) continue;
        for (const auto& p : r->disturbance.value("probes", nlohmann::json::array())) {
            const std::string suffix = "." + p.get<std::string>();
            for (auto& [name, m] : metrics) m.disturbed = m.disturbed || name.ends_with(suffix);
        }
    }
    return metrics;
}

Status run_status(const RunRecord& run) {
    // No repeats: nothing to derive from, so the status the caller set (e.g. waived) stands.
    if (run.repeats.empty()) return run.status;
    // A disturbed attempt retried under the same index is superseded by the later attempt:
    // each index counts by its last attempt.
    std::map<int, const RepeatRecord*> last;
    for (const auto& r : run.repeats) {
        auto& slot = last[r.index];
        if (slot == nullptr || r.attempt >= slot->attempt) slot = &r;
    }
    bool failed = false, timeout = false, disturbed = false, waived = false;
    for (const auto& [index, r] : last) {
        failed = failed || r->status == Status::failed;
        timeout = timeout || r->status == Status::timeout;
        disturbed = disturbed || r->status == Status::disturbed;
        waived = waived || r->status == Status::waived;
    }
    if (failed) return Status::failed;
    if (timeout) return Status::timeout;
    if (disturbed) return Status::disturbed;
    if (waived) return Status::waived;
    return Status::ok;
}

}  // namespace pinbench
