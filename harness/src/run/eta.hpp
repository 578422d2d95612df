// The progress line's estimate of the time left (`eta` in `pinbench run`'s progress lines):
// honest from the first repeat where earlier runs of the plan are known (--times-from: a store
// or a results file, results/repeat_times.hpp), else learnt from the plan's own first repeats.
// docs/scenario-format.md, "Stopping early", says how the stopping rule enters it.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "pinbench/scenario/plan.hpp"
#include "results/repeat_times.hpp"

namespace pinbench {

class EtaModel {
public:
    // `agreeing`: the stopping rule's count (0: off), so a run is expected to stop there.
    EtaModel(const std::vector<PlannedRun>& runs, RepeatTimes stored, int agreeing);

    // `seconds` more went into run `run` (an attempt, with the waits before it); `counts`: the
    // attempt ended a repeat (false: it will be retried).
    void attempt_done(std::size_t run, double seconds, bool counts);
    // The run measured no more (finished, stopped early, waived or kept from --resume).
    void run_finished(std::size_t run);
    // Seconds left: each unfinished run's expected repeats still to do, at the stored time per
    // repeat scaled by how this machine compares with it so far, else at the time this
    // invocation's repeats of its kind (else of any kind) took.
    double remaining_s() const;

private:
    // This invocation's mean seconds per repeat of `kind` ("": of every kind).
    std::optional<double> own_mean(const std::string& kind) const;
    struct Run {
        std::string kind;
        int expected = 0;              // repeats it is expected to measure
        std::optional<double> stored;  // seconds per repeat, earlier
        double seconds = 0;            // spent here so far
        int done = 0;
        bool finished = false;
    };
    std::vector<Run> runs_;
    RepeatTimes stored_;
};

}  // namespace pinbench
