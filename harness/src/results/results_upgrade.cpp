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
// Renamed as the workers kind names that sum now (kinds/workers.cpp), so that no compare pools
// the two quantities and the samples are rebuilt under the right name.
void rename_context_with_workspace(RunRecord& run) {
    if (run.run.kind != "workers") return;
    for (const RepeatRecord& r : run.repeats) {
        for (const Snapshot& s : r.snapshots) {
            if (s.label == "workspaces") return;  // measured apart: the context alone
        }
    }
    const std::string before = "workers.context_per_worker.",
                      now = "workers.context_and_workspace_per_worker.";
    std::map<std::string, MetricSummary> renamed;
    for (auto it = run.metrics.begin(); it != run.metrics.end();) {
        if (it->first.starts_with(before)) {
            renamed.emplace(now + it->first.substr(before.size()), std::move(it->second));
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
        rename_context_with_workspace(run);
        // Granules do not change a sample; the stored metrics keep their own.
        const auto rebuilt = compute_run_metrics(run, {});
        for (auto& [name, metric] : run.metrics) {
            if (metric.samples) continue;
            const auto it = rebuilt.find(name);
            if (it != rebuilt.end() && same_summary(metric, it->second)) metric.samples = it->second.samples;
        }
    }
}

}  // namespace pinbench
