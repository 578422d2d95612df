// `pinbench run FILE -o OUT`: a scenario file run, each repeat in a fresh process, into one
// results file; `pinbench run --backend replay --from RESULTS [--script S] -o OUT` replays a real
// one; `--resume FILE` continues an interrupted one. Then the answer (cli/answer.hpp).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "answer.hpp"
#include "command.hpp"
#include "installed_files.hpp"
#include "output_path.hpp"
#include "pinbench/platform/interrupt.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/replay/replay_script.hpp"
#include "pinbench/results/metric_catalog.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/scenario/plan.hpp"
#include "pinbench/scenario/scenario.hpp"
#include "pinbench/store/store.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/units.hpp"
#include "platform/standard_streams.hpp"
#include "run/plan_runner.hpp"
#include "run/results_file.hpp"
#include "store/earlier_times.hpp"
#include "validators.hpp"

namespace pinbench::cli {
namespace {

// Applies --only and --repeat-timeout. An --only that matches nothing is bad input.
Plan select(Plan plan, const std::vector<std::string>& only, double repeat_timeout) {
    if (!only.empty()) {
        std::erase_if(plan.runs, [&](const PlannedRun& r) {
            return std::none_of(only.begin(), only.end(),
                                [&](const std::string& g) { return glob_match(g, r.id); });
        });
        if (plan.runs.empty()) throw InputError("--only matches no run of " + plan.source);
    }
    if (repeat_timeout > 0) {
        for (auto& r : plan.runs) r.timeout_s = repeat_timeout;
    }
    return plan;
}

class RunCommand : public Command {
public:
    RunCommand(CLI::App& app, std::vector<std::string> command_line)
        : Command(app.add_subcommand(
              "run", "Run a scenario file; each repeat in a fresh process; write one results file")),
          command_line_(std::move(command_line)) {
        add_what_options();
        add_watch_options();
        add_after_options();
    }

    int run() override {
        // "--store ''" names no store (it was taken as no --store, exit 0): refused as `store add`
        // refuses it, before anything is measured.
        if (app_->count("--store") > 0 && store_dir_.empty()) (void)Store::open(store_dir_);
        RunOptions options = run_options();
        std::optional<ResultsDocument> partial;
        if (!resume_path_.empty()) {
            partial = load_results(resume_path_);
            take_from_partial(*partial, options);
        }
        // A replay reproduces its source repeat for repeat unless asked to stop early.
        options.stop_when_agreed = backend_ == "replay" ? stop_early_ : !all_repeats_;
        // Before anything is measured; the resumed file is this run's own, not an input.
        const PreparedOutput output = prepare_output(options.results_path, kDefaultResults,
                                                     {scenario_path_, replay_from_, replay_script_});
        options.results_path = output.path();
        // A second run with the same -o is refused here, while this one writes (exit 2).
        const HeldFile results_lock = lock_results_file(options.results_path);
        // Cancelled (SIGINT, SIGTERM, SIGHUP; Windows console events): end the child, write
        // what was finished with `interrupted`, exit 128+N. A second signal ends us at once.
        const StopOnSignals stop;
        if (backend_ == "replay") {
            if (replay_from_.empty()) throw InputError("--backend replay needs --from RESULTS");
            options.replay_source = replay_from_;
            options.replay_script = replay_script_;
            const ResultsDocument source = load_results(replay_from_);
            return and_store(
                run_plan(select(plan_from_results(source), only_, repeat_timeout_), source.scenario, options),
                options.results_path);
        }
        if (scenario_path_.empty()) throw InputError("run: a scenario FILE is required with --backend cuda");
        if (!replay_from_.empty() || !replay_script_.empty()) {
            throw InputError("--from and --script belong to --backend replay");
        }
        const ScenarioFile file = load_scenario_file(scenario_path_, unknown_metric_reason);
        return and_store(run_plan(select(expand(file), only_, repeat_timeout_), to_json(file), options),
                         options.results_path);
    }

private:
    // What is run and where it goes.
    void add_what_options() {
        app_->add_option("FILE", scenario_path_,
                         "Scenario file (YAML), or a packaged one by name (quick, nightly); optional with "
                         "--backend replay or --resume")
            ->transform(PackagedFile(kScenarios, ".yaml"));
        app_->add_option("-o,--output", results_path_, "Results file (written atomically after every run)")
            ->capture_default_str();
        app_->add_option("--backend", backend_, "cuda (measure) or replay (transform a real results file)")
            ->check(CLI::IsMember({"cuda", "replay"}))
            ->capture_default_str();
        app_->add_option("--from", replay_from_,
                         "Replay: the real results file to replay, or the packaged one by name (h200-smoke)")
            ->transform(PackagedFile(kReplaySources, ".json"));
        app_->add_option("--script", replay_script_,
                         "Replay: the transformation script (YAML), or a packaged one by name (relabel-demo)")
            ->transform(PackagedFile(kReplayScripts, ".yaml"));
        app_->add_option("--only", only_, "Run only the runs whose id matches a glob ('*', '?'); repeatable");
        app_->add_option("--repeat-timeout", repeat_timeout_,
                         "Seconds per repeat, overriding the scenario's timeout_s")
            ->check(
                FiniteNumber(0.0, max_timeout_s, true));  // as timeout_s: larger values overflowed the timer
        app_->add_flag("--all-repeats", all_repeats_,
                       "Measure every planned repeat: no stopping once 3 clean repeats agree to the byte "
                       "(docs/scenario-format.md, 'Stopping early'; the nightly baselines use it)");
        app_->add_flag("--stop-early", stop_early_,
                       "Replay: apply the stopping rule (off by default there: a replay reproduces every "
                       "repeat its source measured)")
            ->excludes("--all-repeats");
        app_->add_option("--times-from", times_from_,
                         "A baseline store (this machine's results) or a results file whose repeat times "
                         "give the progress line's eta from the start (else the run's own first repeats)");
        app_->add_option("--control-size", positive_, "Positive control allocation")
            ->check(SizeValidator())
            ->capture_default_str();
        app_->add_option("--tolerance", tolerance_, "How far a probe may miss a known allocation")
            ->check(SizeValidator())
            ->capture_default_str();
    }

    // The device watch (docs/disturbance.md), --resume and the busy GPU.
    void add_watch_options() {
        app_->add_flag(
            "--no-watch", no_watch_,
            "Do not watch the GPU for other processes while measuring (nothing is then judged disturbed)");
        app_->add_option("--watch-interval", watch_interval_ms_,
                         "Milliseconds between the watch's NVML reads")
            ->check(CLI::Range(1, 1000))
            ->capture_default_str();
        app_->add_option("--disturbance-retries", disturbance_retries_,
                         "Extra attempts for a repeat another process disturbed")
            ->check(CLI::Range(0, 20))
            ->capture_default_str();
        app_->add_option("--retry-wait", retry_wait_s_, "Seconds before the first retry (doubling after)")
            ->check(FiniteNumber(0.0, 600.0))
            ->capture_default_str();
        app_->add_option("--resume", resume_path_,
                         "Continue an interrupted results file: keep its finished runs, measure the rest "
                         "(written to the same file unless -o is given)")
            ->check(ExistingFile());
        app_->add_flag(
            "--allow-busy-gpu", allow_busy_gpu_,
            "Measure even beside a leftover pinbench process on the GPU (recorded in the results)");
        app_->add_flag(
            "--fresh-driver", fresh_driver_,
            "Do not keep the CUDA driver initialised in a holder process beside the children: each "
            "initialises it alone (slower on native Linux; docs/scenario-format.md, 'Less waiting per "
            "repeat')");
        app_->add_flag("--keep-going-when-busy", keep_going_when_busy_,
                       "Do not stop when the same neighbour disturbs the null window and the first attempts "
                       "(every run then retries and ends disturbed on its own)");
        app_->add_option("--null-every", null_every_s_, "Seconds between null windows taken between runs")
            ->check(FiniteNumber(1.0, 1e6))
            ->capture_default_str();
    }

    // What follows the run.
    void add_after_options() {
        app_->add_flag("--no-summary", no_summary_, "Do not end with the answer (pinreport summary)");
        app_->add_option("--store", store_dir_,
                         "After the run, add the results to this baseline store (docs/store.md)");
    }

    RunOptions run_options() const {
        RunOptions options;
        options.executable = current_executable_path();
        options.results_path = results_path_;
        options.command = command_line_;
        options.controls.positive_bytes = parse_size(positive_);
        options.controls.tolerance = static_cast<std::int64_t>(parse_size(tolerance_));
        options.progress = &std::cerr;
        // On a terminal one line rewritten in place, coloured unless NO_COLOR; else plain lines.
        options.progress_style = {standard_error_is_terminal(), colour_on_standard_error(),
                                  standard_error_columns()};
        options.watch.enabled = !no_watch_;
        options.watch.interval = std::chrono::milliseconds(watch_interval_ms_);
        options.watch.retries = disturbance_retries_;
        options.watch.retry_wait = std::chrono::milliseconds(static_cast<long long>(retry_wait_s_ * 1000));
        options.watch.null_every = std::chrono::milliseconds(static_cast<long long>(null_every_s_ * 1000));
        options.allow_busy_gpu = allow_busy_gpu_;
        options.keep_going_when_busy = keep_going_when_busy_;
        options.hold_driver = !fresh_driver_;
        if (!times_from_.empty()) {
            options.earlier_times = [dir = times_from_](const nlohmann::json& environment,
                                                        std::string* note) {
                return repeat_times_from_store(dir, environment, 3, note);
            };
        }
        return options;
    }

    // `--resume FILE` alone measures from what the partial run did: its backend, its scenario
    // file (or replay source and script) and its --only globs. Whatever is taken from it is
    // still checked against the partial run.
    void take_from_partial(const ResultsDocument& partial, RunOptions& options) {
        if (app_->count("--backend") == 0) backend_ = partial.backend;
        if (backend_ == "replay" && partial.replay.is_object()) {
            if (replay_from_.empty()) replay_from_ = partial.replay.value("source", "");
            if (replay_script_.empty()) replay_script_ = partial.replay.value("script", "");
        }
        if (backend_ == "cuda" && scenario_path_.empty()) scenario_path_ = partial.scenario.value("path", "");
        if (only_.empty()) only_ = only_globs(partial.command);
        options.resume = &partial;
        options.resume_path = resume_path_;
        if (app_->count("-o") == 0) options.results_path = resume_path_;
    }

    // Stored only when it finished: an interrupted file is resumed, then stored. Then the
    // answer (cli/answer.hpp), unless cancelled or asked not to.
    int and_store(int code, const std::string& results_path) const {
        if (code < 128 && !store_dir_.empty()) {
            code = std::max(code, add_to_store(store_dir_, {results_path}, false));
        }
        if (code < 128 && !no_summary_) print_answer(results_path, store_dir_, std::cout);
        return code;
    }

    std::vector<std::string> command_line_;
    std::string scenario_path_;
    static constexpr const char* kDefaultResults = "pinbench-results.json";
    std::string results_path_ = kDefaultResults;
    std::string backend_ = "cuda";
    std::string replay_from_, replay_script_;
    std::string positive_ = "256MiB", tolerance_ = "2MiB";
    std::vector<std::string> only_;
    double repeat_timeout_ = 0;
    bool no_watch_ = false;
    int watch_interval_ms_ = 10, disturbance_retries_ = 3;
    double retry_wait_s_ = 1.0, null_every_s_ = 60;
    std::string resume_path_;
    bool allow_busy_gpu_ = false, keep_going_when_busy_ = false;
    bool no_summary_ = false, all_repeats_ = false, stop_early_ = false, fresh_driver_ = false;
    std::string store_dir_, times_from_;
};

}  // namespace

void add_run_command(CLI::App& app, Commands& commands, std::vector<std::string> command_line) {
    commands.push_back(std::make_unique<RunCommand>(app, std::move(command_line)));
}

}  // namespace pinbench::cli
