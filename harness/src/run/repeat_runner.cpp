#include "run/repeat_runner.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <string>
#include <thread>

#include "pinbench/platform/interrupt.hpp"
#include "pinbench/results/run_metrics.hpp"
#include "run/protocol.hpp"
#include "run/repeat_judgement.hpp"

namespace pinbench {
namespace {

// Sleeps `d`, in short steps, returning early when a stop signal arrives.
void sleep_unless_stopped(std::chrono::milliseconds d) {
    const auto until = SteadyClock::now() + d;
    while (stop_signal() == 0 && SteadyClock::now() < until) {
        std::this_thread::sleep_for(std::min<std::chrono::milliseconds>(d, std::chrono::milliseconds(50)));
    }
}

// The parent's phases beside the child's own (results-schema.md, "Phases"); the child's exit
// is what its wall time leaves after its start and measure.
void record_phases(RepeatRecord& r, double wait_before_ms, double return_wait_ms) {
    r.phases_ms["wait_before"] = wait_before_ms;
    r.phases_ms["return_wait"] = return_wait_ms;
    const auto start = r.phases_ms.find("start");
    const auto measure = r.phases_ms.find("measure");
    if (start != r.phases_ms.end() && measure != r.phases_ms.end()) {
        r.phases_ms["exit"] = std::max(0.0, r.wall_ms - start->second - measure->second);
    }
}

}  // namespace

// The run being measured: its record so far and what decides its retries.
struct RepeatRunner::RunState {
    const PlannedRun& planned;
    std::size_t index, runs;
    const WatchPlan& plan;
    RunRecord record;
    SteadyClock::time_point began = SteadyClock::now();
    int attempts = 0, disturbed_attempts = 0;
    bool neighbour_seen = false;  // a neighbour was on the GPU, or NVML could not say
    bool gave_up = false;         // no more retries: a repeat stayed disturbed, or the GPU is busy
    bool device_level = false;    // some attempt's watch had no process list

    // The stopping rule never applies beside a neighbour (the outlier check compares every
    // repeat with the run's median), without process lists (no neighbour could be told apart),
    // nor after a disturbed attempt: such a run measures every planned repeat.
    [[nodiscard]] bool measures_every_repeat() const {
        return neighbour_seen || device_level || disturbed_attempts > 0;
    }
};

RepeatRunner::RepeatRunner(ChildLauncher& launcher, const Nvml* nvml, const RunOptions& options,
                           const nlohmann::json& environment, bool per_process_judges,
                           BusyGpuCheck busy_check, Progress& progress, WatchSummary& watch,
                           std::map<std::string, Stopping> source_stops)
    : launcher_(launcher),
      nvml_(nvml),
      options_(options),
      replay_(!options.replay_source.empty()),
      source_stops_(std::move(source_stops)),
      all_devices_(watch_plan_for(environment, 1, options.controls.tolerance).devices),
      per_process_judges_(per_process_judges),
      busy_check_(std::move(busy_check)),
      progress_(progress),
      watch_(watch) {
    if (nvml_) baseline_ = read_device_level(*nvml_, all_devices_);
}

MeasuredRun RepeatRunner::run(const PlannedRun& planned, std::size_t index, std::size_t runs,
                              const WatchPlan& plan) {
    RunState run{planned, index, runs, plan, {}};
    run.record.run = planned;
    MeasuredRun measured;
    first_attempts(run, measured.stopped);
    if (run.neighbour_seen && stop_signal() == 0 && busy_.empty()) retry_outliers(run);
    // Without process lists, fewer than 3 clean repeats cannot show that they agree: their
    // device-level probes are marked, so those metrics are kept but never judged.
    if (run.device_level && stop_signal() == 0 && busy_.empty()) mark_unverified(run.record.repeats);
    if (stop_signal() != 0) {
        // Cancelled: this run is left out (a resume measures it again whole).
        if (measured.stopped.is_null()) measured.stopped = {{"run_id", planned.id}, {"repeat", nullptr}};
        return measured;
    }
    conclude(run);
    measured.record = std::move(run.record);
    return measured;
}

// Every repeat in turn, each attempted until an attempt is final; stops at a stop signal (noted
// in `stopped`), a busy GPU, a waived repeat, once the repeats agree (the stopping rule), or, in
// a replay, where the source's run stopped (it has nothing past that to replay).
void RepeatRunner::first_attempts(RunState& run, nlohmann::json& stopped) {
    const int planned = run.planned.repeats;
    Stopping& stopping = run.record.stopping.emplace(Stopping{planned, 0, ""});
    const auto source_stop = source_stops_.find(run.planned.id);
    for (int k = 0; k < planned && stop_signal() == 0 && busy_.empty(); ++k) {
        if (source_stop != source_stops_.end() && k >= source_stop->second.stopped_at) {
            progress_.skip(planned - k);
            stopping.why = "the source stopped here: " + source_stop->second.why;
            return;
        }
        Status status = Status::ok;
        for (int number = 0; stop_signal() == 0; ++number) {
            const auto [final, st] = attempt(run, k, number);
            status = st;
            if (final) break;
        }
        if (stop_signal() != 0) {
            stopped = {{"run_id", run.planned.id}, {"repeat", k}};
            return;
        }
        stopping.stopped_at = k + 1;
        if (status == Status::waived) {
            // The machine cannot do it (an unsupported API, too few GPUs): asking again
            // would only repeat the reason.
            progress_.skip(planned - k - 1);
            stopping.why = "waived";
            return;
        }
        if (k + 1 < planned) {
            if (const auto why = stop_here(run)) {
                progress_.skip(planned - k - 1);
                stopping.why = "agreed: " + *why;
                return;
            }
        }
    }
    if (!busy_.empty()) {
        stopping.why = "stopped: the GPU is busy";
    } else if (!options_.stop_when_agreed) {
        stopping.why = "all repeats: the stopping rule is off (--all-repeats; a replay without --stop-early)";
    } else if (planned <= options_.agreeing_repeats) {
        stopping.why = "all repeats: " + std::to_string(planned) + " planned, " +
                       std::to_string(options_.agreeing_repeats) + " needed to agree";
    } else if (run.measures_every_repeat()) {
        stopping.why = "all repeats: another process was on the GPU, or NVML could not say";
    } else {
        stopping.why = "all repeats: " + repeats_agree(run.record, options_.agreeing_repeats).why;
    }
}

// Why the run may stop after its repeats so far (the stopping rule), or nullopt
// (RunState::measures_every_repeat says when it never may).
std::optional<std::string> RepeatRunner::stop_here(const RunState& run) const {
    if (!options_.stop_when_agreed || run.measures_every_repeat()) {
        return std::nullopt;
    }
    const Agreement a = repeats_agree(run.record, options_.agreeing_repeats);
    if (!a.agreed) return std::nullopt;
    return a.why;
}

// A neighbour was on the GPU (or NVML could not say: no process list): repeats that disagree
// with the rest are retried too. Each pass retries every odd index once; a pass after the
// retries are spent still marks the odd ones, so none ends ok with its value.
void RepeatRunner::retry_outliers(RunState& run) {
    for (int pass = 0; pass < options_.watch.retries + 2 && stop_signal() == 0; ++pass) {
        const std::vector<int> again = mark_outliers(run.record.repeats, run.plan);
        if (again.empty()) break;
        run.disturbed_attempts += static_cast<int>(again.size());
        for (int k : again) retry(run, k);
    }
}

// Repeat k again, after its last attempt, within the retries and the run's retry budget.
void RepeatRunner::retry(RunState& run, int k) {
    int number = 0;
    for (const auto& r : run.record.repeats) {
        if (r.index == k) number = std::max(number, r.attempt + 1);
    }
    for (; stop_signal() == 0; ++number) {
        if (number > options_.watch.retries ||
            SteadyClock::now() - run.began >= options_.watch.retry_budget) {
            break;
        }
        progress_.skip(-1);
        if (attempt(run, k, number).first) break;
    }
}

// One attempt at repeat k, recorded in the run; returns whether it is final (not to be
// retried) and its status.
std::pair<bool, Status> RepeatRunner::attempt(RunState& run, int k, int number) {
    RepeatRecord r = watched_attempt(run, k, number);
    ++run.attempts;
    if (r.status == Status::disturbed) ++run.disturbed_attempts;
    if (busy_.empty()) {
        const auto found = busy_check_.attempt(
            r.status == Status::disturbed ? r.disturbance : nlohmann::json(), steady_ns(SteadyClock::now()));
        if (found) {
            busy_ = *found;
            run.gave_up = true;
        }
    }
    // Once one repeat of the run stayed disturbed through all its retries, the run is
    // disturbed whatever follows: later repeats get one attempt each.
    const bool retry = r.status == Status::disturbed && number < options_.watch.retries && !run.gave_up &&
                       busy_.empty() && SteadyClock::now() - run.began < options_.watch.retry_budget;
    if (r.status == Status::disturbed && !retry) run.gave_up = true;
    progress_.repeat_done(run.index, run.runs, run.planned.id, k, run.planned.repeats,
                          to_string(r.status) + (r.error.empty() ? "" : ": " + r.error.substr(0, 160)) +
                              (retry ? " (retrying)" : ""),
                          !retry);
    const Status status = r.status;
    run.record.repeats.push_back(std::move(r));
    if (retry) {
        // Give the neighbour time to finish what it was doing: 1 s, 2 s, 4 s ...
        sleep_unless_stopped(options_.watch.retry_wait * (1LL << std::min(number, 4)));
    }
    return {!retry, status};
}

// The child of one attempt, once the devices are back to their level, under the watch; an ok
// repeat whose judged devices were disturbed becomes disturbed.
RepeatRecord RepeatRunner::watched_attempt(RunState& run, int k, int number) {
    DeviceWait wait;
    if (nvml_ && level_moved_) {
        // Before the first attempt after the driver holder started or stopped: its level is the
        // new baseline, read once it stopped moving, so the watch sees no move of the holder's.
        SettledLevel settled = settled_device_level(*nvml_, all_devices_, options_.device_wait_limit);
        baseline_ = std::move(settled.level);
        wait = settled.wait;
    }
    level_moved_ = false;
    if (nvml_ && wait.settled) {
        const double settling_ms = wait.waited_ms;
        wait = wait_for_device_level(*nvml_, all_devices_, baseline_, options_.controls.tolerance,
                                     options_.device_wait_limit);
        wait.waited_ms += settling_ms;
    }
    nlohmann::json request = {{"mode", replay_ ? child_mode::replay : child_mode::measure},
                              {"run", to_json(run.planned)},
                              {"run_id", run.planned.id},
                              {"repeat", k},
                              {"attempt", number}};
    if (replay_) request["replay"] = {{"source", options_.replay_source}, {"script", options_.replay_script}};
    const auto timeout = std::chrono::milliseconds(static_cast<long long>(run.planned.timeout_s * 1000));
    WatchedAttempt w = run_watched_attempt(launcher_, nvml_, request, timeout, run.plan, options_.watch, k);
    watch_.add(w);
    run.neighbour_seen |= w.foreign_present || !w.no_process_list.empty();
    run.device_level |= !w.no_process_list.empty();
    RepeatRecord r = std::move(w.record);
    r.attempt = number;
    r.parent_wait_ms = wait.waited_ms;
    record_phases(r, wait.waited_ms, w.return_wait_ms);
    r.parent_settled = wait.settled;
    if (!wait.settled && r.error.empty()) r.error = wait.note;
    if (r.status == Status::ok && disturbs_judgement(w.disturbance, run.plan, per_process_judges_)) {
        r.status = Status::disturbed;
        r.error = w.disturbance.evidence.front().text;
    }
    return r;
}

// The run's status, the reason of a run that is not ok, and its disturbance record.
void RepeatRunner::conclude(RunState& run) const {
    RunRecord& rec = run.record;
    rec.status = run_status(rec);
    for (const auto& r : rec.repeats) {
        if (r.status != Status::ok && rec.reason.empty() && r.status != Status::disturbed) {
            rec.reason = r.error;
        }
    }
    if (run.disturbed_attempts == 0) return;
    rec.disturbance = run_disturbance(rec.repeats, run.attempts, run.disturbed_attempts);
    if (rec.status == Status::disturbed) {
        rec.reason = std::to_string(run.disturbed_attempts) + " of " + std::to_string(run.attempts) +
                     " attempts disturbed by another process; no clean repeat for every index";
        if (!busy_.empty()) rec.reason += "; stopped: " + busy_;
    }
}

}  // namespace pinbench
