// Earlier repeat times for the progress line's eta (run/eta.hpp), from a baseline store or a
// results file: `pinbench run --times-from`.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "results/repeat_times.hpp"

namespace pinbench {

// The repeat times of the newest `newest` real (not replayed) results files in the store
// `dir` filed under this machine's key (store_key_of(environment)); or, where `dir` is a results
// file, of that file (any machine's). A store that cannot be read, or holds nothing of this
// machine, gives none (the eta then learns from the plan's own repeats). *note says which, as
// one sentence for the progress output: "eta from the repeat times of FILE", "eta from this run's
// first repeats; no earlier run of this machine in DIR".
RepeatTimes repeat_times_from_store(const std::string& dir, const nlohmann::json& environment, int newest,
                                    std::string* note);

}  // namespace pinbench
