// Older results files to the current version, in one place: every reader of a results file
// (resume, replay, the store, `pinbench results upgrade` for pinreport) sees version 4.
#pragma once

#include "pinbench/results/results.hpp"

namespace pinbench {

// Version 3 and older hold each metric's summary but not its per-repeat samples. They are
// rebuilt from the repeats (compute_run_metrics: snapshots, timings and data) and kept only
// where the rebuilt summary equals the stored one; a metric that differs (written by another
// version of the metric code) keeps samples empty: shown, never judged ("summary only"). A
// metric whose meaning changed is renamed first: a version 2 workers run's
// workers.context_per_worker.* (the context with the workspace) becomes
// workers.context_and_workspace_per_worker.*.
void upgrade_metrics(ResultsDocument& doc);

}  // namespace pinbench
