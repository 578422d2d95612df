// `pinbench run --resume`: one measurement in two parts. The partial results file is continued
// only by the same scenario, the same pinbench and the same machine; its finished runs are kept.
#pragma once

#include <string>

#include "pinbench/results/results.hpp"

namespace pinbench {

// Checks that `partial` (read from `path`) can be continued by `now`, the document just started
// (InputError naming the field that differs), then gives `now` the first part's identity and
// start and records that part in `now.resumed`.
void continue_measurement(ResultsDocument& now, const ResultsDocument& partial, const std::string& path);

// ... on the same machine as far as the results care: driver release and model, GPU, count.
// Called once `now.environment` is known.
void check_same_environment(const ResultsDocument& partial, const ResultsDocument& now,
                            const std::string& path);

// The run `planned` as the partial file finished it, or nullptr: only when the file's record is
// of this very plan (its plan.size_bytes, repeats and every other field as planned now) and its
// repeats are repeats of it. Otherwise `why` says what differs, and the run is measured again (a
// hand-edited partial with plan.size_bytes 1 or repeats 2^31-1 was kept, and changed verdicts).
const RunRecord* finished_run(const ResultsDocument& partial, const PlannedRun& planned, std::string* why);

}  // namespace pinbench
