#include "results/results_upgrade.hpp"

#include <algorithm>
#include <cmath>

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

}  // namespace

void upgrade_metrics(ResultsDocument& doc) {
    for (RunRecord& run : doc.runs) {
        if (run.metrics.empty()) continue;
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
