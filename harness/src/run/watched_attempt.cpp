#include "run/watched_attempt.hpp"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <thread>

#include "pinbench/platform/interrupt.hpp"
#include "pinbench/results/environment_record.hpp"
#include "run/device_watch.hpp"
#include "run/settle.hpp"

namespace pinbench {
namespace {

bool back_at(const WatchSample& now, const WatchSample& before, std::int64_t tolerance) {
    for (std::size_t i = 0; i < now.used.size() && i < before.used.size(); ++i) {
        if (now.used[i] >= 0 && before.used[i] >= 0 && std::llabs(now.used[i] - before.used[i]) > tolerance) {
            return false;
        }
    }
    return true;
}

std::vector<std::int64_t> gap(const WatchSample& now, const WatchSample& before) {
    std::vector<std::int64_t> g;
    for (std::size_t i = 0; i < now.used.size() && i < before.used.size(); ++i) {
        g.push_back(now.used[i] >= 0 && before.used[i] >= 0 ? now.used[i] - before.used[i] : 0);
    }
    return g;
}

// Kinds whose child only ever adds to what it held at its first snapshot; the workers and
// shared kinds start and end other processes, whose contexts legitimately come and go.
bool only_adds(const std::string& kind) { return kind != "workers" && kind != "shared"; }

}  // namespace

WatchPlan watch_plan_for(const nlohmann::json& environment, int gpus, std::int64_t tolerance) {
    WatchPlan plan;
    // Half the positive control's tolerance: one 2 MiB step of a neighbour is a disturbance,
    // where the positive control may still pass (it allows a probe to miss by 2 MiB).
    plan.tolerance = tolerance / 2;
    for (std::size_t i = 0; i < described_device_count(environment); ++i) {
        const std::optional<unsigned> n = nvml_index_of(environment, i);
        if (!n) continue;
        const unsigned index = *n;
        plan.devices.push_back(index);
        if (i == 0) plan.cuda0 = index;
        if (static_cast<int>(i) < std::max(gpus, 1)) plan.judged_devices.insert(index);
    }
    return plan;
}

RepeatRecord record_from(const ChildLauncher::Result& result, int index) {
    RepeatRecord r;
    if (result.response) {
        nlohmann::json record = result.response->at("record");
        // Controls and the environment child are no repeat of a run: index -1 on the wire.
        if (record.value("index", 0) < 0) record["index"] = 0;
        r = repeat_from_json(record);
    } else {
        r.status = result.outcome.kind == ProcessOutcome::Kind::timed_out ? Status::timeout : Status::failed;
        r.error = result.problem;
        r.output_tail = result.outcome.output;
    }
    r.index = index;
    r.wall_ms = result.outcome.wall_ms;
    return r;
}

WatchTrace injected_trace(const nlohmann::json& injected) {
    WatchTrace t;
    for (const auto& d : injected.value("devices", nlohmann::json::array())) {
        t.devices.push_back(d.get<unsigned>());
    }
    for (const auto& s : injected.value("samples", nlohmann::json::array())) {
        WatchSample w;
        w.no_process_list = s.value("no_process_list", std::string());
        w.t_ns = s.at("t_ns").get<std::int64_t>();
        for (const auto& u : s.at("used")) w.used.push_back(u.get<std::int64_t>());
        for (const auto& p : s.value("processes", nlohmann::json::array())) {
            w.processes.push_back({p.at("pid").get<std::uint32_t>(), p.value("device", 0u),
                                   p.value("used", std::int64_t{-1}), p.value("graphics", false)});
            if (p.contains("name")) {
                t.names[p.at("pid").get<std::uint32_t>()] = p.at("name").get<std::string>();
            }
        }
        append_if_changed(t, std::move(w));
    }
    return t;
}

WatchedAttempt run_watched_attempt(ChildLauncher& launcher, const Nvml* nvml, nlohmann::json request,
                                   std::chrono::milliseconds timeout, const WatchPlan& plan,
                                   const WatchOptions& options, int index) {
    WatchedAttempt out;
    std::unique_ptr<DeviceWatch> watch;
    if (nvml != nullptr && options.enabled && !plan.devices.empty()) {
        watch = std::make_unique<DeviceWatch>(*nvml, plan.devices, options.interval);
    }
    const std::string kind =
        request.contains("run") ? request["run"].value("kind", std::string()) : std::string();
    AttemptWindow window;
    window.begin_ns = steady_ns(SteadyClock::now());
    request["launched_ns"] = window.begin_ns;  // the child's start phase (results-schema.md, "Phases")
    const ChildLauncher::Result result = launcher.run(std::move(request), timeout);
    out.record = record_from(result, index);
    RepeatRecord& r = out.record;

    WatchTrace trace;
    if (watch) {
        // Everything the child held is returned when it exits; wait (bounded) to see it come back.
        const WatchSample before = watch->first();
        const auto exited = SteadyClock::now();
        for (;;) {
            const WatchSample now = watch->latest();
            if (back_at(now, before, plan.tolerance) || stop_signal() != 0) break;
            if (SteadyClock::now() - exited >= options.return_limit) {
                window.returned = false;
                window.return_gap = gap(now, before);
                break;
            }
            std::this_thread::sleep_for(options.interval);
        }
        out.return_wait_ms = std::chrono::duration<double, std::milli>(SteadyClock::now() - exited).count();
        trace = watch->finish();
        out.watch_reads = trace.reads;
        out.watch_read_ms = trace.read_ms_total;
    } else if (result.response && result.response->contains("injected_watch")) {
        trace = injected_trace(result.response->at("injected_watch"));
    }
    window.end_ns = steady_ns(SteadyClock::now());
    if (r.pid != 0) window.own_pids.insert(r.pid);
    for (const auto& p : r.data.value("worker_pids", nlohmann::json::array())) {
        if (p.is_number_unsigned()) window.own_pids.insert(p.get<std::uint32_t>());
    }
    for (const auto& s : r.snapshots) {
        if (s.window.end_ns != 0) window.idle.push_back(s.window);
    }
    for (const auto& s : trace.samples) {
        for (const auto& p : s.processes) out.foreign_present |= !window.own_pids.contains(p.pid);
    }
    out.no_process_list = trace.no_process_list;

    out.disturbance = judge_attempt(trace, window, plan.tolerance);
    std::set<std::string> keys;
    for (const auto& s : r.snapshots) {
        for (const auto& [k, v] : s.readings) keys.insert(k);
    }
    if (r.status == Status::ok && only_adds(kind)) {
        std::map<std::string, unsigned> key_device;
        for (const auto& k : keys) {
            if (describe_key(k).direction == Direction::fixed) continue;
            if (const auto dev = device_of_key(k, plan.cuda0)) key_device[k] = *dev;
        }
        add_negative_costs(r.snapshots, key_device, plan.tolerance, out.disturbance);
    }
    r.disturbance = disturbance_json(out.disturbance, disturbed_keys(keys, out.disturbance, plan.cuda0));
    return out;
}

Disturbance watch_quiet_window(const Nvml& nvml, const WatchPlan& plan, std::chrono::milliseconds window,
                               std::chrono::milliseconds interval, WatchTrace* trace_out) {
    DeviceWatch watch(nvml, plan.devices, interval);
    const std::int64_t begin = steady_ns(SteadyClock::now());
    for (const auto until = SteadyClock::now() + window; SteadyClock::now() < until && stop_signal() == 0;) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    const WatchTrace trace = watch.finish();
    AttemptWindow w;
    w.begin_ns = begin;
    w.end_ns = steady_ns(SteadyClock::now());
    // Nothing of ours runs: the whole window is idle and every process is a neighbour.
    w.idle.push_back({begin, begin, w.end_ns});
    if (trace_out != nullptr) *trace_out = trace;
    return judge_attempt(trace, w, plan.tolerance);
}

}  // namespace pinbench
