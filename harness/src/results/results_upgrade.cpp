#include "results/results_upgrade.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

#include "pinbench/results/run_metrics.hpp"

namespace pinbench {
namespace {

bool close(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max({1.0, std::abs(a), std::abs(b)}); }

// The stored summary is what the file's reader was promised: samples that summarise to
// anything else would change what the file says.
bool same_summary(const MetricSummary& stored, const MetricSummary& rebuilt) {
    const Summary& a = stored.stats;
    const Summary& b = rebuilt.stats;
    return stored.unit == rebuilt.unit && a.n == b.n && close(a.median, b.median) && close(a.min, b.min) &&
           close(a.max, b.max) && close(a.mad, b.mad);
}

// Before results version 3 a worker's context was read together with its GPU-use workspace, and
// stored under the name the context alone has had since (589.6 against 523.6 MiB on the H200).
// The workers kind names that sum workers.context_and_workspace_per_worker when it rebuilds such
// a run (kinds/workers.cpp decides, from the snapshots): the stored metric takes the name the
// rebuild gave it, so no compare pools the two quantities and its samples are found.
void rename_context_with_workspace(RunRecord& run, const std::map<std::string, MetricSummary>& rebuilt) {
    const std::string before = "workers.context_per_worker.",
                      now = "workers.context_and_workspace_per_worker.";
    std::map<std::string, MetricSummary> renamed;
    for (auto it = run.metrics.begin(); it != run.metrics.end();) {
        const std::string name = it->first.starts_with(before) ? now + it->first.substr(before.size()) : "";
        if (!name.empty() && !rebuilt.contains(it->first) && rebuilt.contains(name)) {
            renamed.emplace(name, std::move(it->second));
            it = run.metrics.erase(it);
        } else {
            ++it;
        }
    }
    run.metrics.merge(renamed);
}

}  // namespace

void upgrade_metrics(ResultsDocument& doc) {
    for (RunRecord& run : doc.runs) {
        if (run.metrics.empty()) continue;
        // Granules do not change a sample; the stored metrics keep their own.
        const auto rebuilt = compute_run_metrics(run, {});
        rename_context_with_workspace(run, rebuilt);
        for (auto& [name, metric] : run.metrics) {
            if (metric.samples) continue;
            const auto it = rebuilt.find(name);
            if (it != rebuilt.end() && same_summary(metric, it->second)) metric.samples = it->second.samples;
        }
    }
}

}  // namespace pinbench
