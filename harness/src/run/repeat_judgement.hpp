// Judging a run's repeats against other processes on the GPU, after the watch of each attempt
// (run/disturbance.hpp): which probes judge the run, which repeats disagree with the rest, which
// cannot be shown to agree, and the run's disturbance record (docs/disturbance.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pinbench/results/results.hpp"
#include "run/disturbance.hpp"
#include "run/watched_attempt.hpp"

namespace pinbench {

// Per-process dedicated probes (DXGI LOCAL, PDH process dedicated) that the host positive
// control showed to see pinned bytes: where one exists it judges, and neighbours that move
// only the device-level probes do not make the repeat unusable.
bool per_process_probe_judges(const nlohmann::json& controls);

// Does this attempt's disturbance touch what judges the run?
bool disturbs_judgement(const Disturbance& d, const WatchPlan& plan, bool per_process_judges);

// The ok repeats whose costs stray from the run's (cost_outliers) become disturbed, with the
// evidence "outlier"; returns their repeat indices (empty: the ok repeats agree).
std::vector<int> mark_outliers(std::vector<RepeatRecord>& repeats, const WatchPlan& plan);

// A run watched without process lists whose clean repeats are too few to show agreement
// (cost_outliers needs 3): each clean repeat's device-level probes are marked disturbed, with
// evidence "unverified", so their metrics carry "disturbed": true and are never judged
// ("Without process lists").
void mark_unverified(std::vector<RepeatRecord>& repeats);

// The stopping rule (docs/scenario-format.md, "Stopping early"): do the run's repeats so far
// agree well enough to decide? Yes when there are at least `min_agreeing` of them, every
// attempt of the run ended ok (a disturbed, failed or retried attempt never counts toward
// agreement: such a run repeats its full count), and every bytes and count metric of the run is
// identical to the byte in all of them. `why` says which either way, for the run's stopping record.
struct Agreement {
    bool agreed = false;
    std::string why;
};
Agreement repeats_agree(const RunRecord& run, int min_agreeing);

// The run's disturbance record: {attempts, disturbed_attempts, probes, evidence (the first 20)}
// over its disturbed repeats.
nlohmann::json run_disturbance(const std::vector<RepeatRecord>& repeats, int attempts,
                               int disturbed_attempts);

}  // namespace pinbench
