// pinbench: measures what pinned host memory costs in GPU memory. See README.md.
//   pinbench plan FILE            expand a scenario file, touch no GPU
//   pinbench run FILE -o OUT      run it, each repeat in a fresh process; write results JSON
//   pinbench run --backend replay --from RESULTS [--script S] -o OUT
//   pinbench doctor               environment + controls; exits non-zero when a control fails
//   pinbench store add RESULTS --store DIR   file results as a per-driver-release baseline
//   pinbench results upgrade IN [-o OUT]      an older results file in the current version
//   pinbench trace [-o TRACE] -- PROGRAM ARGS   trace a program's host pinning (docs/trace.md)
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iterator>
#include <optional>

#include "answer.hpp"
#include "json/json_reader.hpp"
#include "kinds/worker_group.hpp"
#include "pinbench/atomic_file.hpp"
#include "pinbench/errors.hpp"
#include "pinbench/interrupt.hpp"
#include "pinbench/metric_catalog.hpp"
#include "pinbench/plan.hpp"
#include "pinbench/replay_script.hpp"
#include "pinbench/results.hpp"
#include "pinbench/scenario.hpp"
#include "pinbench/standard_streams.hpp"
#include "pinbench/store.hpp"
#include "pinbench/subprocess.hpp"
#include "pinbench/units.hpp"
#include "run/child.hpp"
#include "run/doctor.hpp"
#include "run/repeat_runner.hpp"
#include "trace/trace_command.hpp"

namespace {

using namespace pinbench;

// CLI11 validator for sizes with units.
struct SizeValidator : CLI::Validator {
    SizeValidator() {
        name_ = "SIZE";
        func_ = [](std::string& s) -> std::string {
            try {
                (void)parse_size(s);
                return {};
            } catch (const std::exception& e) {
                return e.what();
            }
        };
    }
};

// CLI11 validator for every floating-point option: a finite number from `min` to `max` (above
// `min` when `min_excluded`). CLI11's own Range lets NaN through and its messages quote bounds
// such as the largest double with 300 digits.
struct FiniteNumber : CLI::Validator {
    FiniteNumber(double min, double max, bool min_excluded = false) {
        const auto label = [](double v) {
            char text[32];
            std::snprintf(text, sizeof text, "%g", v);
            return std::string(text);
        };
        const std::string range =
            (min_excluded ? "above " + label(min) + " and up to " : label(min) + " to ") + label(max);
        name_ = "NUMBER";
        description("a number " + range);
        func_ = [=](std::string& s) -> std::string {
            const char* begin = s.c_str();
            char* end = nullptr;
            const double v = std::strtod(begin, &end);
            if (s.empty() || end != begin + s.size()) return "'" + s + "' is not a number";
            if (!std::isfinite(v)) return "'" + s + "' is not a finite number (expected " + range + ")";
            if (v < min || v > max || (min_excluded && v == min)) {
                return "'" + s + "' is out of range (expected " + range + ")";
            }
            return {};
        };
    }
};

// Standard input as one string, bounded as read_file bounds a file (pinbench/atomic_file.hpp).
std::string read_standard_input(std::uint64_t max_bytes) {
    std::string text;
    char buffer[64 * 1024];
    while (std::cin.read(buffer, sizeof buffer) || std::cin.gcount() > 0) {
        text.append(buffer, static_cast<std::size_t>(std::cin.gcount()));
        if (text.size() > max_bytes) {
            throw InputError("(stdin): more than " + size_label(max_bytes) +
                             ", larger than the limit for this kind of file");
        }
    }
    if (std::cin.bad()) throw SystemError("cannot read standard input");
    return text;
}

nlohmann::json scenario_record(const ScenarioFile& file) {
    nlohmann::json scenarios = nlohmann::json::array();
    for (const auto& s : file.scenarios) scenarios.push_back(to_json(s));
    return {{"path", file.path}, {"schema_version", file.schema_version}, {"scenarios", scenarios}};
}

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

// `pinbench store add`: one line per file. Bad input (unreadable, incomplete, unknown schema) is
// named and the other files are still added; the exit code is then 2.
int add_to_store(const std::string& dir, const std::vector<std::string>& files, bool allow_incomplete) {
    const Store store = Store::open(dir);
    StoreAddOptions options;
    options.allow_incomplete = allow_incomplete;
    options.lock.report = [](const std::string& line) { std::cerr << "store: " << line << "\n"; };
    int code = exit_code::ok;
    for (const auto& f : files) {
        try {
            const StoredEntry e = store.add(f, options);
            std::cout << (e.already_stored ? "already stored: " : "stored: ") << e.relative_path
                      << (e.replay ? "  (REPLAYED DATA: replay namespace, never a baseline)" : "") << "\n";
            for (const std::string& partial : e.replaced) {
                std::cout << "replaced the partial " << partial << " (the same measurement, resumed)\n";
            }
        } catch (const InputError& e) {
            std::cerr << e.what() << "\n";
            code = exit_code::bad_input;
        }
    }
    return code;
}

int list_store(const std::string& dir) {
    const Store store = Store::open_existing(dir);  // reading never creates: a typo is exit 2
    int code = exit_code::ok;
    for (const auto& e : store.list()) {
        if (!e.problem.empty()) {
            // One line per file; the reader's messages already start with the path.
            std::cerr << (e.problem.rfind(e.path, 0) == 0 ? "" : e.path + ": ") << e.problem << "\n";
            code = exit_code::bad_input;
            continue;
        }
        std::cout << e.relative_path << (e.replay ? "  (replay)" : "") << "\n";
    }
    return code;
}

// `pinbench results upgrade`: the file as this build reads it (results_upgrade.hpp), written in
// the current version; IN "-" reads standard input (what pinreport pipes), no -o (or -o -)
// writes stdout.
int upgrade_results(const std::string& in, const std::string& out) {
    const bool to_stdout = out.empty() || out == "-";
    if (!to_stdout) check_output_path(out);
    ResultsDocument doc;
    if (in == "-") {
        const std::string text = read_standard_input(input_limit::data);
        doc = results_from_json(detail::parse_strict_json(text, "(stdin)"), "(stdin)");
    } else {
        doc = load_results(in);
    }
    const std::string text = to_json(doc).dump(1) + "\n";
    if (to_stdout) {
        std::cout << text;
    } else {
        write_file_atomically(out, text);
    }
    return exit_code::ok;
}

int pinbench_main(int argc, char** argv) {
    CLI::App app{"pinbench: what pinned (page-locked) host memory costs in GPU memory, per driver release"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "pinbench " PINBENCH_VERSION);

    auto* metrics_cmd = app.add_subcommand(
        "metrics", "List every metric a results file can hold: pattern, kinds, unit, which way is worse");
    bool metrics_json = false;
    metrics_cmd->add_flag("--json", metrics_json, "As JSON (what pinreport reads)");

    std::string scenario_path;
    auto* plan_cmd =
        app.add_subcommand("plan", "Expand a scenario file into runs and print them (no GPU is touched)");
    plan_cmd->add_option("FILE", scenario_path, "Scenario file (YAML)")->required();

    std::string results_path = "pinbench-results.json";
    std::string backend = "cuda";
    std::string replay_from, replay_script;
    std::string positive = "256MiB", tolerance = "2MiB";
    std::vector<std::string> only;
    double repeat_timeout = 0;
    auto* run_cmd = app.add_subcommand(
        "run", "Run a scenario file; each repeat in a fresh process; write one results file");
    run_cmd->add_option("FILE", scenario_path,
                        "Scenario file (YAML); optional with --backend replay or --resume");
    run_cmd->add_option("-o,--output", results_path, "Results file (written atomically after every run)")
        ->capture_default_str();
    run_cmd->add_option("--backend", backend, "cuda (measure) or replay (transform a real results file)")
        ->check(CLI::IsMember({"cuda", "replay"}))
        ->capture_default_str();
    run_cmd->add_option("--from", replay_from, "Replay: the real results file to replay")
        ->check(CLI::ExistingFile);
    run_cmd->add_option("--script", replay_script, "Replay: the transformation script (YAML)")
        ->check(CLI::ExistingFile);
    run_cmd->add_option("--only", only, "Run only the runs whose id matches a glob ('*', '?'); repeatable");
    run_cmd
        ->add_option("--repeat-timeout", repeat_timeout,
                     "Seconds per repeat, overriding the scenario's timeout_s")
        ->check(FiniteNumber(0.0, max_timeout_s, true));  // as timeout_s: larger values overflowed the timer
    run_cmd->add_option("--control-size", positive, "Positive control allocation")
        ->check(SizeValidator())
        ->capture_default_str();
    run_cmd->add_option("--tolerance", tolerance, "How far a probe may miss a known allocation")
        ->check(SizeValidator())
        ->capture_default_str();

    // The device watch (docs/disturbance.md).
    bool no_watch = false;
    int watch_interval_ms = 10, disturbance_retries = 3;
    double retry_wait_s = 1.0, null_every_s = 60;
    run_cmd->add_flag(
        "--no-watch", no_watch,
        "Do not watch the GPU for other processes while measuring (nothing is then judged disturbed)");
    run_cmd->add_option("--watch-interval", watch_interval_ms, "Milliseconds between the watch's NVML reads")
        ->check(CLI::Range(1, 1000))
        ->capture_default_str();
    run_cmd
        ->add_option("--disturbance-retries", disturbance_retries,
                     "Extra attempts for a repeat another process disturbed")
        ->check(CLI::Range(0, 20))
        ->capture_default_str();
    run_cmd->add_option("--retry-wait", retry_wait_s, "Seconds before the first retry (doubling after)")
        ->check(FiniteNumber(0.0, 600.0))
        ->capture_default_str();
    std::string resume_path;
    bool allow_busy_gpu = false;
    bool no_summary = false;
    run_cmd
        ->add_option("--resume", resume_path,
                     "Continue an interrupted results file: keep its finished runs, measure the rest "
                     "(written to the same file unless -o is given)")
        ->check(CLI::ExistingFile);
    run_cmd->add_flag("--allow-busy-gpu", allow_busy_gpu,
                      "Measure even beside a leftover pinbench process on the GPU (recorded in the results)");
    bool keep_going_when_busy = false;
    run_cmd->add_flag("--keep-going-when-busy", keep_going_when_busy,
                      "Do not stop when the same neighbour disturbs the null window and the first attempts "
                      "(every run then retries and ends disturbed on its own)");
    run_cmd->add_option("--null-every", null_every_s, "Seconds between null windows taken between runs")
        ->check(FiniteNumber(1.0, 1e6))
        ->capture_default_str();

    std::string store_dir;
    run_cmd->add_flag("--no-summary", no_summary, "Do not end with the answer (pinreport summary)");
    run_cmd->add_option("--store", store_dir,
                        "After the run, add the results to this baseline store (docs/store.md)");

    std::vector<std::string> store_files;
    bool allow_incomplete = false;
    auto* store_cmd = app.add_subcommand("store", "The per-driver-version baseline store (docs/store.md)");
    store_cmd->require_subcommand(1);
    auto* store_add_cmd =
        store_cmd->add_subcommand("add", "File results under their platform/model/GPU/count/release key");
    store_add_cmd->add_option("RESULTS", store_files, "Results files")->required()->check(CLI::ExistingFile);
    store_add_cmd->add_option("--store", store_dir, "Store directory (created when absent)")->required();
    store_add_cmd->add_flag("--allow-incomplete", allow_incomplete,
                            "Also store results of an interrupted run");
    auto* store_list_cmd = store_cmd->add_subcommand("list", "List the stored results and any unusable file");
    store_list_cmd->add_option("--store", store_dir, "Store directory")->required();

    std::string upgrade_in, upgrade_out;
    auto* results_cmd = app.add_subcommand("results", "Results files (docs/results-schema.md)");
    results_cmd->require_subcommand(1);
    auto* upgrade_cmd = results_cmd->add_subcommand(
        "upgrade", "Write a results file of an older schema version in the current one (per-repeat samples)");
    upgrade_cmd->add_option("IN", upgrade_in, "Results file, or - for standard input")->required();
    upgrade_cmd->add_option("-o,--output", upgrade_out, "Where to write it (default, or -: standard output)");

    std::string bundle = "pinbench-doctor.json";
    std::string doctor_size = "1GiB";
    auto* doctor_cmd =
        app.add_subcommand("doctor", "Print the environment and run every control; write a JSON bundle");
    doctor_cmd->add_option("--bundle", bundle, "Where to write the JSON bundle")->capture_default_str();
    doctor_cmd->add_option("--control-size", doctor_size, "Positive control allocation")
        ->check(SizeValidator())
        ->capture_default_str();
    doctor_cmd->add_flag("--allow-busy-gpu", allow_busy_gpu,
                         "Run the controls even beside a leftover pinbench process on the GPU");
    doctor_cmd->add_option("--tolerance", tolerance, "How far a probe may miss a known allocation")
        ->check(SizeValidator())
        ->capture_default_str();

    std::string request_path;
    trace::TraceOptions trace_options;
    std::string trace_out = "pinbench-trace.json";
    double trace_timeout_s = 0;
    int trace_interval_ms = 20;
    auto* trace_cmd = app.add_subcommand(
        "trace", "Run PROGRAM and trace every host-pinning call it makes (CUPTI), with NVML device samples");
    trace_cmd->add_option("-o,--out", trace_out, "Trace file to write (docs/trace.md)")
        ->capture_default_str();
    trace_cmd->add_option("--interval-ms", trace_interval_ms, "NVML sampling interval")
        ->check(CLI::Range(1, 10000))
        ->capture_default_str();
    trace_cmd->add_option("--stack", trace_options.stack_depth, "Native call-stack frames recorded per call")
        ->check(CLI::Range(0, 64));
    trace_cmd->add_option("--timeout", trace_timeout_s, "Kill the program after this many seconds (0: never)")
        ->check(FiniteNumber(0.0, max_timeout_s));
    trace_cmd->add_option("--cwd", trace_options.working_directory, "Working directory of the program");
    trace_cmd->add_option("--injection", trace_options.injection,
                          "The injection library (default: the one built beside pinbench)");
    trace_cmd->add_option("COMMAND", trace_options.command, "The program and its arguments, after --")
        ->required();
    trace_cmd->footer(
        "The program's output passes through and its exit code is pinbench's (124 on a timeout, "
        "127 when it cannot start, 128+N on a signal).");

    std::uint32_t exec_parent = 0;
    std::vector<std::string> exec_argv;
    auto* exec_cmd = app.add_subcommand("__exec", "");  // internal: a traced program tied to its tracer
    exec_cmd->add_option("--parent", exec_parent);
    exec_cmd->add_option("ARGV", exec_argv)->required();
    exec_cmd->group("");

    auto* child_cmd = app.add_subcommand("__child", "");  // internal: one isolated measurement
    child_cmd->group("");
    child_cmd->add_option("--request", request_path)->required();

    // internal: a worker process of the workers and shared kinds (kinds/worker_group.hpp)
    std::string worker_api, worker_shared;
    std::uint64_t worker_bytes = 0;
    bool worker_no_cuda = false;
    auto* worker_cmd = app.add_subcommand("__worker", "");
    worker_cmd->group("");
    worker_cmd->add_option("--api", worker_api)->required();
    worker_cmd->add_option("--bytes", worker_bytes)->required();
    worker_cmd->add_flag("--no-cuda", worker_no_cuda);
    std::uint32_t worker_parent = 0;
    worker_cmd->add_option("--parent", worker_parent);
    worker_cmd->add_option("--shared", worker_shared);

    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        (void)app.exit(e);
        return exit_code::bad_input;
    }

    try {
        if (*exec_cmd) return exec_tied(exec_parent, exec_argv);
        if (*child_cmd) return child_main(request_path);
        if (*worker_cmd) {
            std::string why;
            const auto api = parse_api_variant(worker_api, &why);
            if (!api) throw InputError("__worker --api: " + why);
            die_with_parent(worker_parent);
            return kinds::worker_main({*api, worker_bytes, !worker_no_cuda, worker_shared});
        }
        if (*metrics_cmd) {
            if (metrics_json) {
                std::cout << metric_catalog_json().dump(1) << "\n";
                return exit_code::ok;
            }
            for (const MetricSpec& m : metric_catalog()) {
                std::cout << m.pattern << "  [" << m.unit << ", " << m.direction
                          << (m.headline ? ", headline" : "") << "] " << m.kinds << ": " << m.what << "\n";
            }
            return exit_code::ok;
        }
        if (*trace_cmd) {
            trace_options.timeout = std::chrono::milliseconds(static_cast<long long>(trace_timeout_s * 1000));
            trace_options.interval = std::chrono::milliseconds(trace_interval_ms);
            check_output_path(trace_out);  // before the program runs, not after
            return trace::trace_main(trace_options, trace_out, std::cerr);
        }
        if (*plan_cmd) {
            const ScenarioFile file = load_scenario_file(scenario_path, unknown_metric_reason);
            std::cout << describe(expand(file));
            return exit_code::ok;
        }
        if (*store_add_cmd) return add_to_store(store_dir, store_files, allow_incomplete);
        if (*store_list_cmd) return list_store(store_dir);
        if (*upgrade_cmd) return upgrade_results(upgrade_in, upgrade_out);
        if (*doctor_cmd) {
            DoctorOptions options;
            options.executable = current_executable_path();
            options.bundle_path = bundle;
            check_output_path(bundle);
            options.controls.positive_bytes = parse_size(doctor_size);
            options.controls.tolerance = static_cast<std::int64_t>(parse_size(tolerance));
            options.allow_busy_gpu = allow_busy_gpu;
            const StopOnSignals stop;  // a cancelled doctor ends its control child and exits 128+N
            return run_doctor(options, std::cout);
        }
        if (*run_cmd) {
            RunOptions options;
            options.executable = current_executable_path();
            options.results_path = results_path;
            options.command.assign(argv, argv + argc);
            options.controls.positive_bytes = parse_size(positive);
            options.controls.tolerance = static_cast<std::int64_t>(parse_size(tolerance));
            options.progress = &std::cerr;
            options.watch.enabled = !no_watch;
            options.watch.interval = std::chrono::milliseconds(watch_interval_ms);
            options.watch.retries = disturbance_retries;
            options.watch.retry_wait = std::chrono::milliseconds(static_cast<long long>(retry_wait_s * 1000));
            options.watch.null_every = std::chrono::milliseconds(static_cast<long long>(null_every_s * 1000));
            options.allow_busy_gpu = allow_busy_gpu;
            options.keep_going_when_busy = keep_going_when_busy;
            std::optional<ResultsDocument> partial;
            if (!resume_path.empty()) {
                partial = load_results(resume_path);
                // `--resume FILE` alone measures from what the partial run did: its backend, its
                // scenario file (or replay source and script) and its --only globs. Whatever is
                // taken from it is still checked against the partial run.
                if (run_cmd->count("--backend") == 0) backend = partial->backend;
                if (backend == "replay" && partial->replay.is_object()) {
                    if (replay_from.empty()) replay_from = partial->replay.value("source", "");
                    if (replay_script.empty()) replay_script = partial->replay.value("script", "");
                }
                if (backend == "cuda" && scenario_path.empty()) {
                    scenario_path = partial->scenario.value("path", "");
                }
                if (only.empty()) only = only_globs(partial->command);
                options.resume = &*partial;
                options.resume_path = resume_path;
                if (run_cmd->count("-o") == 0) options.results_path = resume_path;
            }
            check_output_path(options.results_path);  // before anything is measured
            // Cancelled (SIGINT, SIGTERM, SIGHUP; Windows console events): end the child, write
            // what was finished with `interrupted`, exit 128+N. A second signal ends us at once.
            const StopOnSignals stop;
            // Stored only when it finished: an interrupted file is resumed, then stored.
            // Then the answer (cli/answer.hpp), unless cancelled or asked not to.
            const auto and_store = [&](int code) {
                if (code < 128 && !store_dir.empty()) {
                    code = std::max(code, add_to_store(store_dir, {options.results_path}, false));
                }
                if (code < 128 && !no_summary) print_answer(options.results_path, store_dir, std::cout);
                return code;
            };
            if (backend == "replay") {
                if (replay_from.empty()) throw InputError("--backend replay needs --from RESULTS");
                options.replay_source = replay_from;
                options.replay_script = replay_script;
                const ResultsDocument source = load_results(replay_from);
                return and_store(run_plan(select(plan_from_results(source), only, repeat_timeout),
                                          source.scenario, options));
            }
            if (scenario_path.empty()) {
                throw InputError("run: a scenario FILE is required with --backend cuda");
            }
            if (!replay_from.empty() || !replay_script.empty()) {
                throw InputError("--from and --script belong to --backend replay");
            }
            const ScenarioFile file = load_scenario_file(scenario_path, unknown_metric_reason);
            return and_store(
                run_plan(select(expand(file), only, repeat_timeout), scenario_record(file), options));
        }
    } catch (const InputError& e) {
        std::cerr << e.what() << "\n";
        return exit_code::bad_input;
    } catch (const std::exception& e) {
        std::cerr << "pinbench: " << e.what() << "\n";
        return exit_code::infrastructure;
    }
    return exit_code::ok;
}

}  // namespace

// Nothing escapes: an exception thrown while the command line is being set up (before
// pinbench_main's own handlers) is one line and the infrastructure exit code too. Whatever a
// command printed must have reached standard output: a write that failed (a full
// device, a closed pipe or descriptor) is one line and the infrastructure exit code, never 0.
int main(int argc, char** argv) {
    guard_standard_streams();
    int code = exit_code::infrastructure;
    try {
        code = pinbench_main(argc, argv);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pinbench: %s\n", e.what());
    } catch (...) {
        std::fprintf(stderr, "pinbench: an unknown exception\n");
    }
    if (const std::string error = standard_output_error(); !error.empty()) {
        std::fprintf(stderr, "pinbench: cannot write standard output: %s\n", error.c_str());
        if (code < exit_code::infrastructure) code = exit_code::infrastructure;
    }
    return code;
}
