// Before the first run of `pinbench run`: the environment and the controls the runs are measured
// against, or, for the replay backend, those of the real results file it replays.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include "pinbench/cuda/nvml.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/scenario/plan.hpp"
#include "run/child_launcher.hpp"
#include "run/driver_hold.hpp"
#include "run/progress.hpp"
#include "run/run_options.hpp"

namespace pinbench {

struct RunSetup {
    std::unique_ptr<Nvml> nvml;          // the parent's view of the devices; null: none (replay, no NVML)
    std::int64_t controls_began_ns = 0;  // steady clock; when the controls (null first) began; 0: none ran
    std::optional<int> exit_code;        // set: nothing is to be measured, exit with this
    DriverHold driver;                   // the driver holder, started and stopped per run, or why not
    std::map<std::string, Stopping> source_stops;  // replay: the source's runs that stopped early
};

// Nothing can be measured here: no CUDA device (what() says why and the next step). pinbench
// exits 3 with that one line, and no results file is written.
class NoDeviceError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Measuring: the environment from a child, then (where there is a CUDA device and no leftover
// pinbench on it) the controls, into doc.environment and doc.controls. Throws NoDeviceError
// where there is no CUDA device.
RunSetup set_up_measurement(ResultsDocument& doc, ChildLauncher& launcher, const RunOptions& options,
                            Progress& progress);

// Replaying: the source's environment (relabelled by the script) and controls, doc.replay, and
// the source's runs that stopped early (read from the one load of the source).
// A transformation out of range is an InputError before any child runs.
RunSetup set_up_replay(ResultsDocument& doc, const RunOptions& options, Progress& progress);

// Notes a failed control, or one disturbed by another process; true when none failed (a
// disturbed control is recorded, not a failure of the run: each run carries its own disturbance
// verdict, docs/disturbance.md; `doctor` fails on it).
bool controls_ok_noted(const nlohmann::json& controls, Progress& progress);

}  // namespace pinbench
