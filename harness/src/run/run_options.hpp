// What `pinbench run` asks of the runner (run/plan_runner.hpp), from its command line.
#pragma once

#include <chrono>
#include <ostream>
#include <string>
#include <vector>

#include "pinbench/results/results.hpp"
#include "run/controls.hpp"
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
    bool allow_busy_gpu = false;              // measure even beside a leftover pinbench process
    bool keep_going_when_busy = false;        // do not stop when a neighbour keeps the GPU busy
    const ResultsDocument* resume = nullptr;  // --resume: the partial file being continued
    std::string resume_path;
    std::ostream* progress = nullptr;  // stderr in the CLI
};

}  // namespace pinbench
