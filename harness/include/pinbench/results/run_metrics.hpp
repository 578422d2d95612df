// From repeats' raw snapshots and timings to per-run metric summaries.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "pinbench/results/results.hpp"

namespace pinbench {

// Granule (bytes) per probe key, as measured by the null control; keys absent -> unknown.
using Granules = std::map<std::string, std::int64_t>;

// Metrics of an `overhead` run, over its ok repeats, relative to the "after_context" snapshot:
//   cost.after_alloc.<key>      bytes the key says were consumed once the buffers exist
//   cost.after_first_use.<key>  ... after every buffer was used by the GPU once
//   residual.after_free.<key>   ... left after freeing (lazy reclamation shows here)
// for every non-fixed key available in all those snapshots, plus the timings
//   time.<name>_ms              each entry of RepeatRecord::timings_ms
// A key unavailable in any ok repeat yields no metric (never a 0).
std::map<std::string, MetricSummary> compute_run_metrics(const RunRecord& run, const Granules& granules);

// The overall status of a run from its repeats, each index by its last attempt: ok when all
// are ok, else failed outranks timeout outranks disturbed outranks waived.
Status run_status(const RunRecord& run);

}  // namespace pinbench
