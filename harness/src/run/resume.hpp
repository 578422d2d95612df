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

// The run `id` as the partial file finished it, or nullptr.
const RunRecord* finished_run(const ResultsDocument& partial, const std::string& id);

}  // namespace pinbench
