#include "run/repeat_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <set>
#include <thread>

#include "pinbench/atomic_file.hpp"
#include "pinbench/errors.hpp"
#include "pinbench/interrupt.hpp"
#include "pinbench/nvml.hpp"
#include "pinbench/platform_probes.hpp"
#include "pinbench/replay_script.hpp"
#include "pinbench/run_metrics.hpp"
#include "pinbench/units.hpp"
#include "run/busy_gpu.hpp"
#include "run/device_watch.hpp"
#include "run/environment.hpp"
#include "run/protocol.hpp"
#include "run/settle.hpp"
#include "run/timestamp.hpp"
#include "scenario/kind_spec.hpp"

namespace pinbench {
namespace {

std::string clock_text(double seconds) {
    const long long s = std::llround(seconds);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
    return buf;
}

nlohmann::json tool_record() {
    return {
        {"name", "pinbench"}, {"version", PINBENCH_VERSION},
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
    // `counts`: false for an attempt that will be retried (the repeat is not done yet).
    void repeat_done(std::size_t run_index, std::size_t runs, const std::string& id, int repeat, int repeats,
                     const std::string& status, bool counts = true) {
        if (counts) ++done_;
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

// Per-process dedicated probes (DXGI LOCAL, PDH process dedicated) that the host positive
// control showed to see pinned bytes: where one exists it judges, and neighbours that move
// only the device-level probes do not make the repeat unusable (docs/disturbance.md).
bool per_process_probe_judges(const nlohmann::json& controls) {
    const nlohmann::json host = controls.value("positive_host", nlohmann::json::object());
    const nlohmann::json costs = host.value("dedicated_cost", nlohmann::json::object());
    for (const auto& [key, cost] : costs.items()) {
        if (!is_device_level_key(key) && cost.is_number_integer() && cost.get<std::int64_t>() > 0) {
            return true;
        }
    }
    return false;
}

// Does this attempt's disturbance touch what judges the run?
bool disturbs_judgement(const Disturbance& d, const WatchPlan& plan, bool per_process_judges) {
    if (!d.any() || per_process_judges) return false;
    for (unsigned dev : d.devices) {
        if (plan.judged_devices.contains(dev)) return true;
    }
    return false;
}

// A null window between runs: the devices watched with nothing of ours running.
nlohmann::json null_window_record(const Nvml& nvml, const WatchPlan& plan, const WatchOptions& options,
                                  const std::string& after_run) {
    const Disturbance d = watch_quiet_window(nvml, plan, options.null_window, options.interval);
    nlohmann::json j = disturbance_json(d, {});
    return {{"after_run", after_run},
            {"at", utc_now()},
            {"window_ms", options.null_window.count()},
            {"verdict", d.any() ? "DISTURBED" : "QUIET"},
            {"evidence", j.is_object() ? j["evidence"] : nlohmann::json::array()}};
}

// A run watched without process lists whose clean repeats are too few to show agreement
// (cost_outliers needs 3): each clean repeat's device-level probes are marked disturbed, with
// evidence "unverified", so their metrics carry "disturbed": true and are never judged
// (docs/disturbance.md, "Without process lists").
void mark_unverified(std::vector<RepeatRecord>& repeats) {
    std::vector<RepeatRecord*> ok;
    for (auto& r : repeats) {
        if (r.status == Status::ok) ok.push_back(&r);
    }
    if (ok.empty() || ok.size() >= 3) return;
    const std::string why =
        "NVML gives no process list and " + std::to_string(ok.size()) +
        " clean repeat(s) cannot show that they agree (3 needed): device-level costs not judged";
    for (RepeatRecord* r : ok) {
        nlohmann::json d = r->disturbance.is_object() ? r->disturbance
                                                      : nlohmann::json{{"probes", nlohmann::json::array()},
                                                                       {"evidence", nlohmann::json::array()}};
        std::set<std::string> probes;
        for (const auto& p : d["probes"]) probes.insert(p.get<std::string>());
        for (const auto& s : r->snapshots) {
            for (const auto& [key, reading] : s.readings) {
                if (is_device_level_key(key) && describe_key(key).direction != Direction::fixed) {
                    probes.insert(key);
                }
            }
        }
        d["probes"] = probes;
        d["evidence"].push_back({{"what", "unverified"}, {"text", why}});
        r->disturbance = d;
    }
}

// Sleeps `d`, in short steps, returning early when a stop signal arrives.
void sleep_unless_stopped(std::chrono::milliseconds d) {
    const auto until = SteadyClock::now() + d;
    while (stop_signal() == 0 && SteadyClock::now() < until) {
        std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(d, std::chrono::milliseconds(50)));
    }
}

// The first path at which two JSON values differ ("" when equal), for naming the field.
std::string first_difference(const nlohmann::json& a, const nlohmann::json& b, const std::string& path) {
    // Numbers compare by value: a count read back from JSON is unsigned, the same count parsed
    // from the scenario file now is signed (the first GPU resume was refused for that).
    if (a.type() != b.type() && !(a.is_number() && b.is_number())) return path.empty() ? "(root)" : path;
    if (a.is_object()) {
        for (const auto& [k, v] : a.items()) {
            if (!b.contains(k)) return path + "." + k;
            if (auto d = first_difference(v, b[k], path + "." + k); !d.empty()) return d;
        }
        for (const auto& [k, v] : b.items()) {
            if (!a.contains(k)) return path + "." + k;
        }
        return "";
    }
    if (a.is_array()) {
        if (a.size() != b.size()) return path + " (length)";
        for (std::size_t i = 0; i < a.size(); ++i) {
            if (auto d = first_difference(a[i], b[i], path + "[" + std::to_string(i) + "]"); !d.empty()) {
                return d;
            }
        }
        return "";
    }
    return a == b ? "" : path;
}

// A partial file can be continued only by the same scenario and the same pinbench.
void check_resumable(const ResultsDocument& partial, const ResultsDocument& now, const std::string& path) {
    if (partial.complete) {
        throw InputError(path + ": --resume: this results file is complete; nothing to resume");
    }
    if (partial.backend != now.backend) {
        throw InputError(path + ": --resume: backend is " + partial.backend + " there, " + now.backend +
                         " here");
    }
    if (auto d = first_difference(partial.scenario, now.scenario, "scenario"); !d.empty()) {
        throw InputError(path + ": --resume: " + d +
                         " differs: the scenario file changed since the partial run");
    }
    if (auto d = first_difference(partial.tool.value("version", nlohmann::json()),
                                  now.tool.value("version", nlohmann::json()), "tool.version");
        !d.empty()) {
        throw InputError(path + ": --resume: tool.version differs: another pinbench wrote the partial run");
    }
}

// ... on the same machine as far as the results care: driver release and model, GPU, count.
void check_same_environment(const ResultsDocument& partial, const ResultsDocument& now,
                            const std::string& path) {
    const auto before = machine_identity_of(partial.environment),
               after = machine_identity_of(now.environment);
    for (std::size_t i = 0; i < before.size(); ++i) {
        if (before[i].second != after[i].second) {
            throw InputError(
                path + ": --resume: environment." + before[i].first + " is \"" + before[i].second +
                "\" in the partial run and \"" + after[i].second +
                "\" here: measure the rest on the machine and driver that measured the first part");
        }
    }
}

const RunRecord* finished_run(const ResultsDocument& partial, const std::string& id) {
    for (const auto& r : partial.runs) {
        if (r.run.id == id) return &r;
    }
    return nullptr;
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
    std::int64_t controls_began_ns = 0;  // steady clock; when the controls (null first) began
    doc.backend = replay ? "replay" : "cuda";
    doc.tool = tool_record();
    doc.command = options.command;
    doc.started_at = utc_now();
    doc.measurement_id = make_nonce();
    doc.scenario = scenario;
    const ResultsDocument* resume = options.resume;
    if (resume != nullptr) {
        // One measurement in two parts: its identity and start stay those of the first part.
        check_resumable(*resume, doc, options.resume_path);
        if (!resume->measurement_id.empty()) doc.measurement_id = resume->measurement_id;
        doc.started_at = resume->started_at;
        doc.resumed = resume->resumed.is_array() ? resume->resumed : nlohmann::json::array();
        doc.resumed.push_back({{"started_at", resume->started_at},
                               {"interrupted", resume->interrupted},
                               {"runs", resume->runs.size()},
                               {"command", resume->command},
                               {"environment", resume->environment},
                               {"controls", resume->controls}});
    }
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
        check_transforms(script, source);  // out-of-range arithmetic: exit 2 before any child runs
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
        if (stop_signal() != 0) {
            doc.environment = {{"unavailable", env.problem}};
        } else if (!env.response) {
            progress.note("pinbench: the environment child failed: " + env.problem + "\n" +
                          env.outcome.output);
            doc.environment = {{"unavailable", env.problem}};
        } else {
            doc.environment = env.response->at("data");
        }
        if (cuda_device_count_of(doc.environment).value_or(0) == 0 && stop_signal() == 0) {
            const std::string why = cuda_device_count_why_of(doc.environment);
            progress.note("pinbench: no CUDA device here (" +
                          (why.empty() ? std::string("no response") : why) +
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
        if (nvml) {
            // Leftovers of an earlier pinbench (a cancelled nightly) would measure with us.
            const std::string left = leftovers_on_gpu(*nvml, doc.environment);
            if (!left.empty() && !options.allow_busy_gpu) {
                progress.note("pinbench: " + left + leftover_advice);
                return exit_code::infrastructure;
            }
            if (!left.empty()) note_busy_gpu_allowed(doc.environment, left);
        }
        if (resume != nullptr) check_same_environment(*resume, doc, options.resume_path);
        if (stop_signal() == 0) {
            controls_began_ns = steady_ns(SteadyClock::now());  // the null control comes first
            doc.controls =
                run_controls(launcher, nvml.get(), options.controls, doc.environment, options.watch);
        }
    }
    if (resume != nullptr && replay) check_same_environment(*resume, doc, options.resume_path);
    std::string control_failures;
    // A disturbed control is recorded, not a failure of the run: each run carries its own
    // disturbance verdict (docs/disturbance.md). `doctor` fails on it.
    const bool controls_ok = controls_passed(doc.controls, &control_failures, false);
    if (!controls_ok) progress.note("pinbench: CONTROL FAILED: " + control_failures);
    if (std::string noisy; !controls_passed(doc.controls, &noisy, true) && controls_ok) {
        progress.note("pinbench: controls disturbed by another process: " + noisy);
    }

    int total = 0;
    for (const auto& r : plan.runs) total += r.repeats;
    progress = Progress(options.progress, total);
    const std::string model = driver_model_family(driver_model_of(doc.environment));
    const int have_gpus = static_cast<int>(cuda_device_count_of(doc.environment).value_or(0));
    // The GPUs the children can see (CUDA_VISIBLE_DEVICES), by NVML index: never a hidden one.
    const std::vector<unsigned> all_devices =
        watch_plan_for(doc.environment, 1, options.controls.tolerance).devices;
    DeviceLevel baseline;
    if (nvml) baseline = read_device_level(*nvml, all_devices);
    const bool per_process_judges = per_process_probe_judges(doc.controls);
    const std::size_t plan_runs = plan.runs.size();
    const std::vector<PlannedRun>& all_runs = plan.runs;  // `plan` is the watch's inside the loop
    long long watch_reads = 0;
    double watch_read_ms = 0;
    nlohmann::json null_windows = nlohmann::json::array();
    auto last_null_window = SteadyClock::now();
    // Why the watch had no process list ("" while it had one): it judges at device level only,
    // and every run's repeats must agree (cost_outliers) as they must beside a seen neighbour.
    std::string no_process_list;
    // A neighbour that disturbed the null control and the first attempts stops the run at once.
    BusyGpuCheck busy_check;
    std::string busy;  // the text naming it, once found
    if (!options.keep_going_when_busy && controls_began_ns != 0 && doc.controls.contains("null") &&
        doc.controls["null"].is_object() && doc.controls["null"].value("verdict", "") == "DISTURBED") {
        const auto& null = doc.controls["null"];
        busy_check.null_window(null.contains("disturbance")
                                   ? null["disturbance"].value("evidence", nlohmann::json())
                                   : nlohmann::json(),
                               controls_began_ns);
    }
    bool any_failed = false, any_disturbed = false;
    nlohmann::json stopped_in;  // where a stop signal found the run: {run_id, repeat}
    for (std::size_t i = 0; i < plan.runs.size(); ++i) {
        const PlannedRun& planned = plan.runs[i];
        if (stop_signal() != 0) {
            if (stopped_in.is_null()) stopped_in = {{"run_id", planned.id}, {"repeat", nullptr}};
            break;
        }
        if (const RunRecord* kept = resume ? finished_run(*resume, planned.id) : nullptr) {
            // Measured before the interruption: kept as it was.
            progress.skip(planned.repeats);
            progress.note("[" + std::to_string(i + 1) + "/" + std::to_string(plan.runs.size()) + "] " +
                          planned.id + " kept from " + options.resume_path);
            doc.runs.push_back(*kept);
            continue;
        }
        RunRecord rec;
        rec.run = planned;
        if (!planned.driver_models.empty() &&
            std::find(planned.driver_models.begin(), planned.driver_models.end(), model) ==
                planned.driver_models.end()) {
            rec.status = Status::waived;
            rec.reason = "driver model here is " + model + "; the scenario applies to other models only";
        } else if (const auto why = replay ? std::nullopt : waive_reason(planned, Machine{have_gpus, {}})) {
            // The GPU count and the kind's own rule (kinds/<kind>.cpp), as far as the parent can tell.
            rec.status = Status::waived;
            rec.reason = *why;
        }
        if (rec.status == Status::waived) {
            progress.skip(planned.repeats);
            progress.note("[" + std::to_string(i + 1) + "/" + std::to_string(plan.runs.size()) + "] " +
                          planned.id + " WAIVED: " + rec.reason);
            doc.runs.push_back(std::move(rec));
            save(doc, options.results_path);
            continue;
        }
        const WatchPlan plan = watch_plan_for(doc.environment, planned.gpus, options.controls.tolerance);
        const auto run_began = SteadyClock::now();
        int attempts = 0, disturbed_attempts = 0;
        bool neighbour_seen = false, gave_up = false;
        bool device_level = false;  // some attempt's watch had no process list
        // One attempt at repeat k; returns true when it is final (not to be retried).
        auto attempt = [&](int k, int number) {
            DeviceWait wait;
            if (nvml) {
                wait = wait_for_device_level(*nvml, all_devices, baseline, options.controls.tolerance,
                                             options.device_wait_limit);
            }
            nlohmann::json request = {{"mode", replay ? child_mode::replay : child_mode::measure},
                                      {"run", to_json(planned)},
                                      {"run_id", planned.id},
                                      {"repeat", k},
                                      {"attempt", number}};
            if (replay) {
                request["replay"] = {{"source", options.replay_source}, {"script", options.replay_script}};
            }
            const auto timeout = std::chrono::milliseconds(static_cast<long long>(planned.timeout_s * 1000));
            WatchedAttempt w =
                run_watched_attempt(launcher, nvml.get(), request, timeout, plan, options.watch, k);
            watch_reads += w.watch_reads;
            watch_read_ms += w.watch_read_ms;
            neighbour_seen |= w.foreign_present || !w.no_process_list.empty();
            if (no_process_list.empty()) no_process_list = w.no_process_list;
            device_level |= !w.no_process_list.empty();
            RepeatRecord r = std::move(w.record);
            r.attempt = number;
            r.parent_wait_ms = wait.waited_ms;
            r.parent_settled = wait.settled;
            if (!wait.settled && r.error.empty()) r.error = wait.note;
            ++attempts;
            if (r.status == Status::ok && disturbs_judgement(w.disturbance, plan, per_process_judges)) {
                r.status = Status::disturbed;
                r.error = w.disturbance.evidence.front().text;
            }
            if (r.status == Status::disturbed) ++disturbed_attempts;
            if (busy.empty()) {
                const auto found =
                    busy_check.attempt(r.status == Status::disturbed ? r.disturbance : nlohmann::json(),
                                       steady_ns(SteadyClock::now()));
                if (found) {
                    busy = *found;
                    gave_up = true;
                }
            }
            // Once one repeat of the run stayed disturbed through all its retries, the run is
            // disturbed whatever follows: later repeats get one attempt each.
            const bool retry = r.status == Status::disturbed && number < options.watch.retries && !gave_up &&
                               busy.empty() && SteadyClock::now() - run_began < options.watch.retry_budget;
            if (r.status == Status::disturbed && !retry) gave_up = true;
            progress.repeat_done(i, plan_runs, planned.id, k, planned.repeats,
                                 to_string(r.status) +
                                     (r.error.empty() ? "" : ": " + r.error.substr(0, 160)) +
                                     (retry ? " (retrying)" : ""),
                                 !retry);
            const Status status = r.status;
            rec.repeats.push_back(std::move(r));
            if (retry) {
                // Give the neighbour time to finish what it was doing: 1 s, 2 s, 4 s ...
                sleep_unless_stopped(options.watch.retry_wait * (1LL << std::min(number, 4)));
            }
            return std::pair{!retry, status};
        };
        for (int k = 0; k < planned.repeats && stop_signal() == 0 && busy.empty(); ++k) {
            Status status = Status::ok;
            for (int number = 0; stop_signal() == 0; ++number) {
                const auto [final, st] = attempt(k, number);
                status = st;
                if (final) break;
            }
            if (stop_signal() != 0) {
                stopped_in = {{"run_id", planned.id}, {"repeat", k}};
                break;
            }
            if (status == Status::waived) {
                // The machine cannot do it (an unsupported API, too few GPUs): asking again
                // would only repeat the reason.
                progress.skip(planned.repeats - k - 1);
                break;
            }
        }
        // A neighbour was on the GPU (or NVML could not say: no process list): repeats that
        // disagree with the rest are retried too. Each pass retries every odd index once; a pass
        // after the retries are spent still marks the odd ones, so none ends ok with its value.
        if (neighbour_seen && stop_signal() == 0 && busy.empty()) {
            for (int pass = 0; pass < options.watch.retries + 2 && stop_signal() == 0; ++pass) {
                std::vector<const RepeatRecord*> ok;
                std::vector<std::size_t> where;
                for (std::size_t j = 0; j < rec.repeats.size(); ++j) {
                    if (rec.repeats[j].status == Status::ok) {
                        ok.push_back(&rec.repeats[j]);
                        where.push_back(j);
                    }
                }
                std::vector<std::string> why;
                const auto odd = cost_outliers(ok, plan.judged_devices, plan.cuda0, plan.tolerance, &why);
                if (odd.empty()) break;
                std::vector<int> again;
                for (std::size_t n = 0; n < odd.size(); ++n) {
                    RepeatRecord& r = rec.repeats[where[odd[n]]];
                    r.status = Status::disturbed;
                    r.error = why[n];
                    nlohmann::json ev = r.disturbance.is_object()
                                            ? r.disturbance
                                            : nlohmann::json{{"probes", nlohmann::json::array()},
                                                             {"evidence", nlohmann::json::array()}};
                    ev["evidence"].push_back({{"what", "outlier"}, {"text", why[n]}});
                    r.disturbance = ev;
                    ++disturbed_attempts;
                    again.push_back(r.index);
                }
                for (int k : again) {
                    int number = 0;
                    for (const auto& r : rec.repeats) {
                        if (r.index == k) number = std::max(number, r.attempt + 1);
                    }
                    for (; stop_signal() == 0; ++number) {
                        if (number > options.watch.retries ||
                            SteadyClock::now() - run_began >= options.watch.retry_budget) {
                            break;
                        }
                        progress.skip(-1);
                        const auto [final, st] = attempt(k, number);
                        if (final) break;
                    }
                }
            }
        }
        // Without process lists, fewer than 3 clean repeats cannot show that they agree: their
        // device-level probes are marked, so those metrics are kept but never judged.
        if (device_level && stop_signal() == 0 && busy.empty()) mark_unverified(rec.repeats);
        if (stop_signal() != 0) {
            // Cancelled: this run is left out (a resume measures it again whole).
            if (stopped_in.is_null()) stopped_in = {{"run_id", planned.id}, {"repeat", nullptr}};
            break;
        }
        rec.status = run_status(rec);
        if (rec.status == Status::failed || rec.status == Status::timeout) any_failed = true;
        if (rec.status == Status::disturbed) any_disturbed = true;
        for (const auto& r : rec.repeats) {
            if (r.status != Status::ok && rec.reason.empty() && r.status != Status::disturbed) {
                rec.reason = r.error;
            }
        }
        if (disturbed_attempts > 0) {
            nlohmann::json evidence = nlohmann::json::array();
            std::set<std::string> probes;
            for (const auto& r : rec.repeats) {
                if (r.status != Status::disturbed || !r.disturbance.is_object()) continue;
                for (const auto& p : r.disturbance.value("probes", nlohmann::json::array())) {
                    probes.insert(p.get<std::string>());
                }
                for (const auto& e : r.disturbance["evidence"]) {
                    if (evidence.size() < 20) evidence.push_back(e);
                }
            }
            rec.disturbance = {{"attempts", attempts},
                               {"disturbed_attempts", disturbed_attempts},
                               {"probes", probes},
                               {"evidence", evidence}};
            if (rec.status == Status::disturbed) {
                rec.reason = std::to_string(disturbed_attempts) + " of " + std::to_string(attempts) +
                             " attempts disturbed by another process; no clean repeat for every index";
                if (!busy.empty()) rec.reason += "; stopped: " + busy;
            }
        }
        // Between runs, a null window: the noise seen while this invocation ran.
        if (nvml && options.watch.enabled &&
            SteadyClock::now() - last_null_window >= options.watch.null_every) {
            null_windows.push_back(null_window_record(*nvml, plan, options.watch, planned.id));
            last_null_window = SteadyClock::now();
        }
        doc.runs.push_back(std::move(rec));
        if (!busy.empty()) {
            // Every planned run still ends with a status: the rest were not measured, and say why.
            for (std::size_t j = i + 1; j < plan_runs; ++j) {
                RunRecord left;
                left.run = all_runs[j];
                left.status = Status::disturbed;
                left.reason = "not measured: " + busy +
                              "; pinbench run stopped (--keep-going-when-busy measures anyway)";
                doc.runs.push_back(std::move(left));
            }
            doc.controls["busy_gpu"] = {{"stopped", true}, {"text", busy}};
            any_disturbed = true;
            progress.note("pinbench: stopped: " + busy + "; the remaining " +
                          std::to_string(plan_runs - i - 1) +
                          " runs were not measured (status disturbed). Measure when it is idle, or pass "
                          "--keep-going-when-busy");
        }
        save(doc, options.results_path);
        if (!busy.empty()) break;
    }
    if (nvml) {
        doc.controls["null_windows"] = null_windows;
        doc.controls["watch"] = {
            {"enabled", options.watch.enabled},
            {"interval_ms", options.watch.interval.count()},
            {"reads", watch_reads},
            {"read_ms_total", watch_read_ms},
            {"read_ms_mean", watch_reads > 0 ? watch_read_ms / static_cast<double>(watch_reads) : 0.0}};
        if (options.watch.enabled) doc.controls["watch"]["level"] = "process";
    }
    if (!no_process_list.empty()) {
        // Without process lists the watch saw device usage only (docs/disturbance.md).
        doc.controls["watch"]["level"] = "device";
        doc.controls["watch"]["level_why"] = "NVML gives no process list: " + no_process_list;
    }
    if (const int sig = stop_signal(); sig != 0) {
        nlohmann::json where =
            stopped_in.is_null() ? nlohmann::json{{"run_id", nullptr}, {"repeat", nullptr}} : stopped_in;
        doc.interrupted = {{"signal", stop_signal_name(sig)},
                           {"at", utc_now()},
                           {"run_id", where["run_id"]},
                           {"repeat", where["repeat"]}};
        doc.complete = false;
        doc.finished_at = "";
        save(doc, options.results_path);
        progress.note("pinbench: stopped by " + stop_signal_name(sig) + " with " +
                      std::to_string(doc.runs.size()) + " of " + std::to_string(plan.runs.size()) +
                      " runs finished; " + options.results_path +
                      " says complete: false; continue with: pinbench run --resume " + options.results_path +
                      " (exit " + std::to_string(exit_code_for_signal(sig)) + ")");
        return exit_code_for_signal(sig);
    }
    doc.finished_at = utc_now();
    doc.complete = true;
    save(doc, options.results_path);
    progress.note("results: " + options.results_path);
    if (any_disturbed) {
        progress.note("pinbench: some runs were disturbed by other processes on the GPU (status disturbed)");
    }
    return (controls_ok && !any_failed && !any_disturbed) ? exit_code::ok : exit_code::infrastructure;
}

}  // namespace pinbench
