// Seconds per repeat of earlier runs (the progress line's eta: run/eta.hpp): by run id, and by
// kind for runs never measured before. Filled from a store (this machine's results only) or from
// one results file of any machine (store/earlier_times.hpp); the eta scales them by how this
// machine compares so far.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "pinbench/results/results.hpp"
#include "pinbench/scenario/plan.hpp"

namespace pinbench {

struct RepeatTimes {
    struct Sum {
        double seconds = 0;
        int repeats = 0;
    };
    std::map<std::string, Sum> by_id, by_kind;
    Sum all;

    // Every attempt of the run: its child's wall time and the parent's waits before and after.
    void add(const RunRecord& run);
    // Seconds per repeat of this run's id, else of its kind; nullopt: neither was measured.
    std::optional<double> per_repeat(const PlannedRun& run) const;
    bool empty() const { return all.repeats == 0; }
};

}  // namespace pinbench
