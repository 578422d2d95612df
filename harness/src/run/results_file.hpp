// The results file of one `pinbench run`: the document as the invocation starts it, and its
// writing after every run (atomically, so an interrupted invocation keeps every finished run).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pinbench/results/results.hpp"
#include "platform/held_file.hpp"
#include "run/run_options.hpp"

namespace pinbench {

// The backend, this pinbench, the command, the start and a new measurement identity.
ResultsDocument start_results(const nlohmann::json& scenario, const RunOptions& options);

// Two runs may not write one results file: the one place that says so. Holds RESULTS.lock
// beside the file for as long as the returned value lives (platform/held_file.hpp: let go when
// this process ends, however it ends). Throws InputError (exit 2), naming the other run's pid
// and start, when another living pinbench holds it; nothing has been measured then.
HeldFile lock_results_file(const std::string& path);

// Computes every run's metrics (with the granules of the null control) and writes the file.
void save_results(ResultsDocument& doc, const std::string& path);

}  // namespace pinbench
