// The progress lines of `pinbench run` on stderr: which run, which repeat, elapsed and estimated
// remaining time, and the notes between them.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include "run/eta.hpp"
#include "run/settle.hpp"

namespace pinbench {

class Progress {
public:
    // `out` null: silent. The clock starts now; `total_repeats` are the repeats still to do.
    Progress(std::ostream* out, int total_repeats)
        : out_(out), total_(total_repeats), start_(SteadyClock::now()) {}

    // One attempt ended. `counts`: false for an attempt that will be retried (the repeat is not
    // done yet).
    void repeat_done(std::size_t run_index, std::size_t runs, const std::string& id, int repeat, int repeats,
                     const std::string& status, bool counts = true);
    // Repeats that will not be done after all (a negative count: one more to do).
    void skip(int n) { total_ -= n; }
    // The eta from here on (run/eta.hpp); without one, the mean time of the repeats done so far
    // times the repeats left.
    void set_eta(EtaModel model) { eta_ = std::move(model); }
    // Run `run_index` measures no more (finished, stopped early, waived or kept).
    void run_finished(std::size_t run_index) {
        if (eta_) eta_->run_finished(run_index);
    }
    // "[2/5] ID what": a run kept or waived as a whole.
    void run_note(std::size_t run_index, std::size_t runs, const std::string& id, const std::string& what);
    void note(const std::string& line);

private:
    std::ostream* out_;
    int total_;
    int done_ = 0;
    SteadyClock::time_point start_;
    SteadyClock::time_point last_ = start_;  // the previous attempt's end
    std::optional<EtaModel> eta_;
};

}  // namespace pinbench
