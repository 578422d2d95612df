#include "run/run_setup.hpp"

#include <chrono>

#include "pinbench/platform/interrupt.hpp"
#include "pinbench/replay/replay_script.hpp"
#include "pinbench/results/environment_record.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "run/controls.hpp"
#include "run/device_watch.hpp"
#include "run/doctor.hpp"
#include "run/protocol.hpp"
#include "run/replay_child.hpp"
#include "run/results_file.hpp"
#include "run/resume.hpp"
#include "run/settle.hpp"
#include "run/timestamp.hpp"

namespace pinbench {
namespace {

// The environment record from a child (which may create CUDA contexts; the parent never does),
// or why there is none.
nlohmann::json environment_from_child(ChildLauncher& launcher, Progress& progress) {
    auto env =
        launcher.run({{"mode", child_mode::environment}, {"gpus", 8}}, std::chrono::milliseconds(60000));
    if (stop_signal() != 0) return {{"unavailable", env.problem}};
    if (!env.response) {
        progress.note("pinbench: the environment child failed: " + env.problem + "\n" + env.outcome.output);
        return {{"unavailable", env.problem}};
    }
    return env.response->at("data");
}

}  // namespace

RunSetup set_up_measurement(ResultsDocument& doc, ChildLauncher& launcher, const RunOptions& options,
                            Progress& progress) {
    RunSetup setup;
    std::string nvml_why;
    setup.nvml = Nvml::open(&nvml_why);
    progress.status("collecting the environment...");
    doc.environment = environment_from_child(launcher, progress);
    if (cuda_device_count_of(doc.environment).value_or(0) == 0 && stop_signal() == 0) {
        // Nothing can be measured: one line, no results file, no answer (a file of runs that
        // all failed for want of a GPU answered nothing and said it at length).
        const std::string why = cuda_device_count_why_of(doc.environment);
        throw NoDeviceError("no CUDA device here (" + (why.empty() ? std::string("no response") : why) +
                            "). Nothing was measured; no results file was written. " + no_device_next_step);
    }
    progress.note("running the controls...");
    if (setup.nvml) {
        // Leftovers of an earlier pinbench (a cancelled nightly) would measure with us.
        const std::string left = leftovers_on_gpu(*setup.nvml, doc.environment);
        if (!left.empty() && !options.allow_busy_gpu) {
            progress.note("pinbench: " + left + leftover_advice);
            setup.exit_code = exit_code::infrastructure;
            return setup;
        }
        if (!left.empty()) note_busy_gpu_allowed(doc.environment, left);
    }
    if (options.resume != nullptr) check_same_environment(*options.resume, doc, options.resume_path);
    // Before the controls' first reading, so what the holder takes is in their baselines.
    setup.driver = DriverHold::for_plan(doc.environment, launcher, options.hold_driver);
    setup.driver.note(doc.environment);
    if (stop_signal() == 0) {
        setup.controls_began_ns = steady_ns(SteadyClock::now());  // the null control comes first
        doc.controls =
            run_controls(launcher, setup.nvml.get(), options.controls, doc.environment, options.watch);
    }
    return setup;
}

RunSetup set_up_replay(ResultsDocument& doc, const RunOptions& options, Progress& progress) {
    const ResultsDocument source = load_results(options.replay_source);
    doc.replay = {{"source", options.replay_source},
                  {"source_backend", source.backend},
                  {"script", options.replay_script},
                  {"note", "REPLAYED DATA derived from a real results file; not a measurement"}};
    const ReplayScript script =
        options.replay_script.empty() ? ReplayScript{} : load_replay_script(options.replay_script);
    check_transforms(script, source);  // out-of-range arithmetic: exit 2 before any child runs
    doc.environment = relabel_environment(script, source.environment);
    doc.controls = source.controls;
    doc.controls["replayed_from_source"] = true;
    progress.note("replay backend: " + options.replay_source +
                  (options.replay_script.empty() ? "" : " + " + options.replay_script) +
                  " (REPLAYED DATA, not a measurement)");
    if (options.resume != nullptr) check_same_environment(*options.resume, doc, options.resume_path);
    RunSetup setup;
    setup.source_stops = early_stops(source);
    return setup;
}

bool controls_ok_noted(const nlohmann::json& controls, Progress& progress) {
    std::string failures;
    const bool ok = controls_passed(controls, &failures, false);
    if (!ok) progress.note("pinbench: CONTROL FAILED: " + failures);
    if (std::string noisy; !controls_passed(controls, &noisy, true) && ok) {
        progress.note("pinbench: controls disturbed by another process: " + noisy);
    }
    return ok;
}

}  // namespace pinbench
