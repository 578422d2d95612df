// The results file of one `pinbench run`: the document as the invocation starts it, and its
// writing after every run (atomically, so an interrupted invocation keeps every finished run).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pinbench/results/results.hpp"
#include "run/run_options.hpp"

namespace pinbench {

// The backend, this pinbench, the command, the start and a new measurement identity.
ResultsDocument start_results(const nlohmann::json& scenario, const RunOptions& options);

// Computes every run's metrics (with the granules of the null control) and writes the file:
// after every run (`progress`), and when the run ends (`last`: complete, interrupted, or nothing
// to measure). A results file written in place (a device or FIFO) is written at the end only.
enum class Save { progress, last };
void save_results(ResultsDocument& doc, const RunOptions& options, Save when = Save::progress);

}  // namespace pinbench
