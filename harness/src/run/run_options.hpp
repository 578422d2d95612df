// What `pinbench run` asks of the runner (run/plan_runner.hpp), from its command line.
#pragma once

#include <chrono>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "pinbench/results/results.hpp"
#include "results/repeat_times.hpp"
#include "run/controls.hpp"
#include "run/progress.hpp"
#include "run/watched_attempt.hpp"

namespace pinbench {

struct RunOptions {
    std::string executable;  // this program, for the children
    std::string results_path;
    std::vector<std::string> command;  // as typed, for the record
    std::string replay_source;         // non-empty: replay backend
    std::string replay_script;         // optional with replay
    ControlOptions controls;
    WatchOptions watch;  // the device watch and what a disturbance costs (docs/disturbance.md)
    std::chrono::milliseconds device_wait_limit{15000};
    bool allow_busy_gpu = false;        // measure even beside a leftover pinbench process
    bool keep_going_when_busy = false;  // do not stop when a neighbour keeps the GPU busy
    bool hold_driver = true;            // false (--fresh-driver): run/driver_hold.hpp off
    // The stopping rule (docs/scenario-format.md, "Stopping early"): a run stops repeating once
    // this many clean repeats agree to the byte; false (--all-repeats): every planned repeat.
    bool stop_when_agreed = true;
    int agreeing_repeats = 3;
    // Earlier repeat times for the eta (run/eta.hpp), given the environment; *note says where
    // from. Unset: the eta learns from the plan's own repeats. (The CLI reads --times-from.)
    std::function<RepeatTimes(const nlohmann::json& environment, std::string* note)> earlier_times;
    const ResultsDocument* resume = nullptr;  // --resume: the partial file being continued
    std::string resume_path;
    std::ostream* progress = nullptr;  // stderr in the CLI
    ProgressStyle progress_style;      // a terminal's: one line rewritten in place (run/progress.hpp)
};

}  // namespace pinbench
