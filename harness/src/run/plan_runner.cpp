#include "run/plan_runner.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "pinbench/platform/interrupt.hpp"
#include "pinbench/results/environment_record.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "run/busy_gpu.hpp"
#include "run/child_launcher.hpp"
#include "run/driver_hold.hpp"
#include "run/eta.hpp"
#include "run/progress.hpp"
#include "run/repeat_judgement.hpp"
#include "run/repeat_runner.hpp"
#include "run/results_file.hpp"
#include "run/resume.hpp"
#include "run/run_setup.hpp"
#include "run/timestamp.hpp"
#include "run/watch_summary.hpp"
#include "scenario/kind_spec.hpp"

namespace pinbench {
namespace {

int total_repeats(const Plan& plan) {
    int total = 0;
    for (const auto& r : plan.runs) total += r.repeats;
    return total;
}

// A neighbour that disturbed the null control and the first attempts stops the run at once
// (unless --keep-going-when-busy): the check, armed by that null control's evidence.
BusyGpuCheck busy_gpu_check(const nlohmann::json& controls, std::int64_t controls_began_ns,
                            const RunOptions& options) {
    BusyGpuCheck check;
    if (!options.keep_going_when_busy && controls_began_ns != 0 && controls.contains("null") &&
        controls["null"].is_object() && controls["null"].value("verdict", "") == "DISTURBED") {
        const auto& null = controls["null"];
        check.null_window(null.contains("disturbance")
                              ? null["disturbance"].value("evidence", nlohmann::json())
                              : nlohmann::json(),
                          controls_began_ns);
    }
    return check;
}

// Why the run cannot be measured here, as far as the parent can tell: the driver model, the
// GPU count and the kind's own rule (kinds/<kind>.cpp; not for replay, which has no machine).
std::optional<std::string> parent_waive_reason(const PlannedRun& planned, const std::string& model,
                                               int have_gpus, bool replay) {
    if (!planned.driver_models.empty() &&
        std::find(planned.driver_models.begin(), planned.driver_models.end(), model) ==
            planned.driver_models.end()) {
        return "driver model here is " + model + "; the scenario applies to other models only";
    }
    if (replay) return std::nullopt;
    return waive_reason(planned, Machine{have_gpus, {}});
}

RunRecord waived_run(const PlannedRun& planned, const std::string& why) {
    RunRecord rec;
    rec.run = planned;
    rec.status = Status::waived;
    rec.reason = why;
    return rec;
}

// The GPU is busy: every planned run after `last` still ends with a status, not measured, and
// says why.
void leave_the_rest(ResultsDocument& doc, const Plan& plan, std::size_t last, const std::string& busy,
                    Progress& progress) {
    for (std::size_t j = last + 1; j < plan.runs.size(); ++j) {
        RunRecord left;
        left.run = plan.runs[j];
        left.status = Status::disturbed;
        left.reason =
            "not measured: " + busy + "; pinbench run stopped (--keep-going-when-busy measures anyway)";
        doc.runs.push_back(std::move(left));
    }
    doc.controls["busy_gpu"] = {{"stopped", true}, {"text", busy}};
    progress.note("pinbench: stopped: " + busy + "; the remaining " +
                  std::to_string(plan.runs.size() - last - 1) +
                  " runs were not measured (status disturbed). Measure when it is idle, or pass "
                  "--keep-going-when-busy");
}

// Not bugprone-exception-escape: its default constructor is noexcept through nlohmann::json's,
// which clang-tidy takes for one that may throw.
struct RunsOutcome {  // NOLINT(bugprone-exception-escape)
    bool any_failed = false, any_disturbed = false;
    nlohmann::json stopped_in;  // where a stop signal found the run: {run_id, repeat}; null: none did
};

// The planned runs in turn: each kept from the partial file (--resume), waived, or measured,
// with the results file saved after each; stops at a stop signal or once the GPU is busy.
RunsOutcome run_each(const Plan& plan, const RunOptions& options, const Nvml* nvml, RepeatRunner& repeats,
                     DriverHold& driver, WatchSummary& watch, ResultsDocument& doc, Progress& progress) {
    const bool replay = !options.replay_source.empty();
    const std::string model = driver_model_family(driver_model_of(doc.environment));
    const int have_gpus = static_cast<int>(cuda_device_count_of(doc.environment).value_or(0));
    const std::size_t runs = plan.runs.size();
    RunsOutcome outcome;
    for (std::size_t i = 0; i < runs; ++i) {
        const PlannedRun& planned = plan.runs[i];
        if (stop_signal() != 0) {
            outcome.stopped_in = {{"run_id", planned.id}, {"repeat", nullptr}};
            break;
        }
        if (const RunRecord* kept = options.resume ? finished_run(*options.resume, planned.id) : nullptr) {
            // Measured before the interruption: kept as it was.
            progress.skip(planned.repeats);
            progress.run_finished(i);
            progress.run_note(i, runs, planned.id, "kept from " + options.resume_path);
            doc.runs.push_back(*kept);
            continue;
        }
        if (const auto why = parent_waive_reason(planned, model, have_gpus, replay)) {
            progress.skip(planned.repeats);
            progress.run_finished(i);
            progress.run_note(i, runs, planned.id, "WAIVED: " + *why);
            doc.runs.push_back(waived_run(planned, *why));
            save_results(doc, options.results_path);
            continue;
        }
        const WatchPlan watch_plan =
            watch_plan_for(doc.environment, planned.gpus, options.controls.tolerance);
        // The driver holder started or stopped for this run before its first wait for the
        // devices' level, which then waits for its usage to settle.
        if (driver.before_run(planned)) repeats.level_moved();
        if (driver.applies()) driver.note(doc.environment);
        MeasuredRun measured = repeats.run(planned, i, runs, watch_plan);
        progress.run_finished(i);
        if (!measured.stopped.is_null()) {
            outcome.stopped_in = measured.stopped;
            break;
        }
        const Status status = measured.record.status;
        if (status == Status::failed || status == Status::timeout) outcome.any_failed = true;
        if (status == Status::disturbed) outcome.any_disturbed = true;
        watch.between_runs(nvml, watch_plan, planned.id);
        doc.runs.push_back(std::move(measured.record));
        if (!repeats.busy().empty()) {
            leave_the_rest(doc, plan, i, repeats.busy(), progress);
            outcome.any_disturbed = true;
        }
        save_results(doc, options.results_path);
        if (!repeats.busy().empty()) break;
    }
    return outcome;
}

// Cancelled by `signal`: the file says where and is not complete; a resume continues it.
int finish_interrupted(ResultsDocument& doc, int signal, const nlohmann::json& stopped_in,
                       std::size_t planned_runs, const RunOptions& options, Progress& progress) {
    nlohmann::json where =
        stopped_in.is_null() ? nlohmann::json{{"run_id", nullptr}, {"repeat", nullptr}} : stopped_in;
    doc.interrupted = {{"signal", stop_signal_name(signal)},
                       {"at", utc_now()},
                       {"run_id", where["run_id"]},
                       {"repeat", where["repeat"]}};
    doc.complete = false;
    doc.finished_at = "";
    save_results(doc, options.results_path);
    progress.note("pinbench: stopped by " + stop_signal_name(signal) + " with " +
                  std::to_string(doc.runs.size()) + " of " + std::to_string(planned_runs) +
                  " runs finished; " + options.results_path +
                  " says complete: false; continue with: pinbench run --resume " + options.results_path +
                  " (exit " + std::to_string(exit_code_for_signal(signal)) + ")");
    return exit_code_for_signal(signal);
}

// The eta from the start: earlier repeat times (--times-from), else the plan's own first
// repeats (run/eta.hpp).
EtaModel eta_model(const Plan& plan, const RunOptions& options, const nlohmann::json& environment,
                   Progress& progress) {
    RepeatTimes times;
    if (options.earlier_times) {
        std::string note;
        times = options.earlier_times(environment, &note);
        progress.note("pinbench: " + note);
    }
    return {plan.runs, std::move(times), options.stop_when_agreed ? options.agreeing_repeats : 0};
}

// "repeats: planned N, measured M, K saved by the stopping rule": what ci/main.sh and
// ci/nightly.sh repeat at their end.
std::string repeats_line(const ResultsDocument& doc) {
    long long planned = 0, measured = 0, saved = 0, runs_stopped = 0;
    for (const auto& run : doc.runs) {
        if (!run.stopping) continue;
        planned += run.stopping->planned;
        measured += run.stopping->stopped_at;
        if (run.stopping->why.starts_with("agreed")) {
            saved += run.stopping->planned - run.stopping->stopped_at;
            ++runs_stopped;
        }
    }
    return "pinbench: repeats: planned " + std::to_string(planned) + ", measured " +
           std::to_string(measured) + "; " + std::to_string(saved) + " saved by the stopping rule in " +
           std::to_string(runs_stopped) + " runs whose repeats agreed to the byte";
}

}  // namespace

Plan plan_from_results(const ResultsDocument& doc) {
    Plan plan;
    plan.source = doc.scenario.value("path", "");
    for (const auto& r : doc.runs) plan.runs.push_back(r.run);
    return plan;
}

int run_plan(const Plan& plan, const nlohmann::json& scenario, const RunOptions& options) {
    ResultsDocument doc = start_results(scenario, options);
    if (options.resume != nullptr) continue_measurement(doc, *options.resume, options.resume_path);
    ChildLauncher launcher(options.executable);
    Progress progress(options.progress, 0, options.progress_style);
    RunSetup setup = options.replay_source.empty() ? set_up_measurement(doc, launcher, options, progress)
                                                   : set_up_replay(doc, options, progress);
    if (setup.exit_code) return *setup.exit_code;
    const bool controls_ok = controls_ok_noted(doc.controls, progress);

    progress.restart(total_repeats(plan));
    progress.set_eta(eta_model(plan, options, doc.environment, progress));
    WatchSummary watch(options.watch);
    RepeatRunner repeats(
        launcher, setup.nvml.get(), options, doc.environment, per_process_probe_judges(doc.controls),
        busy_gpu_check(doc.controls, setup.controls_began_ns, options), progress, watch, setup.source_stops);
    const RunsOutcome outcome =
        run_each(plan, options, setup.nvml.get(), repeats, setup.driver, watch, doc, progress);
    watch.write(doc.controls, setup.nvml != nullptr);
    if (const int sig = stop_signal(); sig != 0) {
        return finish_interrupted(doc, sig, outcome.stopped_in, plan.runs.size(), options, progress);
    }
    doc.finished_at = utc_now();
    doc.complete = true;
    save_results(doc, options.results_path);
    progress.note(repeats_line(doc));
    progress.note("results: " + options.results_path);
    if (outcome.any_disturbed) {
        progress.note("pinbench: some runs were disturbed by other processes on the GPU (status disturbed)");
    }
    return (controls_ok && !outcome.any_failed && !outcome.any_disturbed) ? exit_code::ok
                                                                          : exit_code::infrastructure;
}

}  // namespace pinbench
