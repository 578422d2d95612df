// The progress of `pinbench run` on stderr: which run, which repeat, elapsed and estimated
// remaining time, and the notes between them. On a terminal (ProgressStyle::live) the repeat
// line is one line rewritten in place, as pip, uv and tqdm do, its status word coloured unless
// NO_COLOR is set; redirected, every repeat is a plain line of its own, for logs.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <string>
#include <utility>

#include "run/eta.hpp"
#include "run/settle.hpp"

namespace pinbench {

struct ProgressStyle {
    bool live = false;    // a terminal: the repeat line rewritten in place
    bool colour = false;  // ANSI colour on the status word (live only)
    int columns = 0;      // the terminal's width; 0: unknown (80 is assumed)
};

class Progress {
public:
    // `out` null: silent. The clock starts now; `total_repeats` are the repeats still to do.
    Progress(std::ostream* out, int total_repeats, ProgressStyle style = {})
        : out_(out), total_(total_repeats), style_(style), start_(SteadyClock::now()) {}
    ~Progress() { clear_line(); }
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    // The measuring starts: the clock and the count begin again, with `total_repeats` to do.
    void restart(int total_repeats);
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
    // A line of its own (above the live line on a terminal).
    void note(const std::string& line);
    // What is happening now, on a terminal only: shown in place until the next line replaces it.
    void status(const std::string& line);

private:
    void show_live(const std::string& line);
    void clear_line();

    std::ostream* out_;
    int total_;
    ProgressStyle style_;
    int done_ = 0;
    SteadyClock::time_point start_;
    SteadyClock::time_point last_ = start_;  // the previous attempt's end
    std::optional<EtaModel> eta_;
    std::string live_;            // the live line shown now ("" none)
    std::size_t live_width_ = 0;  // its width on the terminal, in characters
};

// The one line of a repeat, as a terminal shows it: "[3/12] 0:12 eta 1:05  repeat 2/7 ok  ID",
// cut to `columns` (the id's end replaced by "..."); `colour` wraps the status word in ANSI colour.
std::string live_line(std::size_t run_index, std::size_t runs, const std::string& id, int repeat, int repeats,
                      const std::string& status, double elapsed_s, double eta_s, int columns, bool colour);

}  // namespace pinbench
