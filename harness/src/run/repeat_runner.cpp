#include "run/repeat_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "pinbench/atomic_file.hpp"
#include "pinbench/errors.hpp"
#include "pinbench/nvml.hpp"
#include "pinbench/replay_script.hpp"
#include "pinbench/run_metrics.hpp"
#include "pinbench/units.hpp"
#include "run/environment.hpp"
#include "run/protocol.hpp"
#include "run/settle.hpp"
#include "run/timestamp.hpp"

namespace pinbench {
namespace {

std::string clock_text(double seconds) {
    const auto s = static_cast<long long>(seconds + 0.5);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
    return buf;
}

nlohmann::json tool_record() {
    return {
        {"name", "pinbench"}, {"version", "0.1.0"},
#if defined(_MSC_VER)
            {"compiler", "MSVC " + std::to_string(_MSC_VER)},
#elif defined(__VERSION__)
            {"compiler", __VERSION__},
#endif
    };
}

// Progress on stderr: which run, which repeat, elapsed and estimated remaining.
class Progress {
public:
    Progress(std::ostream* out, int total_repeats)
        : out_(out), total_(total_repeats), start_(SteadyClock::now()) {}
    void repeat_done(std::size_t run_index, std::size_t runs, const std::string& id, int repeat, int repeats,
                     const std::string& status) {
        ++done_;
        if (!out_) return;
        const double elapsed = std::chrono::duration<double>(SteadyClock::now() - start_).count();
        const double eta = done_ > 0 ? elapsed / done_ * (total_ - done_) : 0;
        *out_ << "[" << run_index + 1 << "/" << runs << "] " << id << " repeat " << repeat + 1 << "/"
              << repeats << " " << status << "  elapsed " << clock_text(elapsed) << "  eta "
              << clock_text(eta) << "\n"
              << std::flush;
    }
    void skip(int n) { total_ -= n; }
    void note(const std::string& line) {
        if (out_) *out_ << line << "\n" << std::flush;
    }

private:
    std::ostream* out_;
    int total_;
    int done_ = 0;
    SteadyClock::time_point start_;
};

RepeatRecord record_from(const ChildLauncher::Result& result, int index) {
    RepeatRecord r;
    if (result.response) {
        r = repeat_from_json(result.response->at("record"));
    } else {
        r.status = result.outcome.kind == ProcessOutcome::Kind::timed_out ? Status::timeout : Status::failed;
        r.error = result.problem;
        r.output_tail = result.outcome.output;
    }
    r.index = index;
    r.wall_ms = result.outcome.wall_ms;
    return r;
}

void finalize_metrics(ResultsDocument& doc) {
    const Granules granules = measure_granules(doc);
    nlohmann::json g = nlohmann::json::object();
    for (const auto& [k, v] : granules) g[k] = v;
    doc.controls["granules"] = g;
    for (auto& run : doc.runs) {
        if (!run.repeats.empty()) run.metrics = compute_run_metrics(run, granules);
    }
}

void save(ResultsDocument& doc, const std::string& path) {
    finalize_metrics(doc);
    write_file_atomically(path, to_json(doc).dump(1) + "\n");
}

}  // namespace

Plan plan_from_results(const ResultsDocument& doc) {
    Plan plan;
    plan.source = doc.scenario.value("path", "");
    for (const auto& r : doc.runs) plan.runs.push_back(r.run);
    return plan;
}

int run_plan(const Plan& plan, const nlohmann::json& scenario, const RunOptions& options) {
    const bool replay = !options.replay_source.empty();
    ResultsDocument doc;
    doc.backend = replay ? "replay" : "cuda";
    doc.tool = tool_record();
    doc.command = options.command;
    doc.started_at = utc_now();
    doc.scenario = scenario;
    ChildLauncher launcher(options.executable);
    Progress progress(options.progress, 0);

    std::string nvml_why;
    std::unique_ptr<Nvml> nvml;
    if (replay) {
        const ResultsDocument source = load_results(options.replay_source);
        doc.replay = {{"source", options.replay_source},
                      {"source_backend", source.backend},
                      {"script", options.replay_script},
                      {"note", "REPLAYED DATA derived from a real results file; not a measurement"}};
        const ReplayScript script =
            options.replay_script.empty() ? ReplayScript{} : load_replay_script(options.replay_script);
        doc.environment = relabel_environment(script, source.environment);
        doc.controls = source.controls;
        doc.controls["replayed_from_source"] = true;
        progress.note("replay backend: " + options.replay_source +
                      (options.replay_script.empty() ? "" : " + " + options.replay_script) +
                      " (REPLAYED DATA, not a measurement)");
    } else {
        nvml = Nvml::open(&nvml_why);
        progress.note("collecting the environment and running the controls...");
        auto env =
            launcher.run({{"mode", child_mode::environment}, {"gpus", 8}}, std::chrono::milliseconds(60000));
        if (!env.response) {
            progress.note("pinbench: the environment child failed: " + env.problem + "\n" +
                          env.outcome.output);
            doc.environment = {{"unavailable", env.problem}};
        } else {
            doc.environment = env.response->at("data");
        }
        if (doc.environment.value("cuda_device_count", 0) == 0) {
            progress.note("pinbench: no CUDA device here (" +
                          doc.environment.value("cuda_device_count_why", std::string("no response")) +
                          "); nothing to measure. Try the replay backend: see README.md");
            doc.finished_at = utc_now();
            doc.controls = {{"skipped", "no CUDA device"}};
            for (const auto& run : plan.runs) {
                RunRecord rec;
                rec.run = run;
                rec.status = Status::failed;
                rec.reason = "no CUDA device";
                doc.runs.push_back(rec);
            }
            save(doc, options.results_path);
            return exit_code::infrastructure;
        }
        doc.controls = run_controls(launcher, nvml.get(), options.controls);
    }
    std::string control_failures;
    const bool controls_ok = controls_passed(doc.controls, &control_failures);
    if (!controls_ok) progress.note("pinbench: CONTROL FAILED: " + control_failures);

    int total = 0;
    for (const auto& r : plan.runs) total += r.repeats;
    progress = Progress(options.progress, total);
    const std::string model = driver_model_of(doc.environment);
    const int have_gpus = doc.environment.value("cuda_device_count", 0);
    std::vector<unsigned> all_devices;
    DeviceLevel baseline;
    if (nvml) {
        for (unsigned d = 0; d < nvml->device_count(); ++d) all_devices.push_back(d);
        baseline = read_device_level(*nvml, all_devices);
    }
    bool any_failed = false;
    for (std::size_t i = 0; i < plan.runs.size(); ++i) {
        const PlannedRun& planned = plan.runs[i];
        RunRecord rec;
        rec.run = planned;
        if (!planned.driver_models.empty() &&
            std::find(planned.driver_models.begin(), planned.driver_models.end(), model) ==
                planned.driver_models.end()) {
            rec.status = Status::waived;
            rec.reason = "driver model here is " + model + "; the scenario applies to other models only";
        } else if (!replay && planned.gpus > have_gpus) {
            rec.status = Status::waived;
            rec.reason = "needs " + std::to_string(planned.gpus) + " GPU(s), this machine has " +
                         std::to_string(have_gpus);
        }
        if (rec.status == Status::waived) {
            progress.skip(planned.repeats);
            progress.note("[" + std::to_string(i + 1) + "/" + std::to_string(plan.runs.size()) + "] " +
                          planned.id + " WAIVED: " + rec.reason);
            doc.runs.push_back(std::move(rec));
            save(doc, options.results_path);
            continue;
        }
        for (int k = 0; k < planned.repeats; ++k) {
            DeviceWait wait;
            if (nvml) {
                wait = wait_for_device_level(*nvml, all_devices, baseline, options.controls.tolerance,
                                             options.device_wait_limit);
            }
            nlohmann::json request = {{"mode", replay ? child_mode::replay : child_mode::measure},
                                      {"run", to_json(planned)},
                                      {"run_id", planned.id},
                                      {"repeat", k}};
            if (replay)
                request["replay"] = {{"source", options.replay_source}, {"script", options.replay_script}};
            const auto timeout = std::chrono::milliseconds(static_cast<long long>(planned.timeout_s * 1000));
            RepeatRecord r = record_from(launcher.run(request, timeout), k);
            r.parent_wait_ms = wait.waited_ms;
            r.parent_settled = wait.settled;
            if (!wait.settled && r.error.empty()) r.error = wait.note;
            progress.repeat_done(
                i, plan.runs.size(), planned.id, k, planned.repeats,
                to_string(r.status) + (r.error.empty() ? "" : ": " + r.error.substr(0, 160)));
            const bool waived = r.status == Status::waived;
            rec.repeats.push_back(std::move(r));
            if (waived) {
                // The machine cannot do it (an unsupported API, too few GPUs): asking again
                // would only repeat the reason.
                progress.skip(planned.repeats - k - 1);
                break;
            }
        }
        rec.status = run_status(rec);
        if (rec.status == Status::failed || rec.status == Status::timeout) any_failed = true;
        for (const auto& r : rec.repeats) {
            if (r.status != Status::ok && rec.reason.empty()) rec.reason = r.error;
        }
        doc.runs.push_back(std::move(rec));
        save(doc, options.results_path);
    }
    doc.finished_at = utc_now();
    doc.complete = true;
    save(doc, options.results_path);
    progress.note("results: " + options.results_path);
    return (controls_ok && !any_failed) ? exit_code::ok : exit_code::infrastructure;
}

}  // namespace pinbench
