#include "run/watch_summary.hpp"

#include "run/disturbance.hpp"
#include "run/timestamp.hpp"

namespace pinbench {
namespace {

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

}  // namespace

void WatchSummary::add(const WatchedAttempt& attempt) {
    reads_ += attempt.watch_reads;
    read_ms_ += attempt.watch_read_ms;
    if (no_process_list_.empty()) no_process_list_ = attempt.no_process_list;
}

void WatchSummary::between_runs(const Nvml* nvml, const WatchPlan& plan, const std::string& after_run) {
    if (nvml && options_.enabled && SteadyClock::now() - last_null_window_ >= options_.null_every) {
        null_windows_.push_back(null_window_record(*nvml, plan, options_, after_run));
        last_null_window_ = SteadyClock::now();
    }
}

void WatchSummary::write(nlohmann::json& controls, bool watched) const {
    if (watched) {
        controls["null_windows"] = null_windows_;
        controls["watch"] = {{"enabled", options_.enabled},
                             {"interval_ms", options_.interval.count()},
                             {"reads", reads_},
                             {"read_ms_total", read_ms_},
                             {"read_ms_mean", reads_ > 0 ? read_ms_ / static_cast<double>(reads_) : 0.0}};
        if (options_.enabled) controls["watch"]["level"] = "process";
    }
    if (!no_process_list_.empty()) {
        // Without process lists the watch saw device usage only (docs/disturbance.md).
        controls["watch"]["level"] = "device";
        controls["watch"]["level_why"] = "NVML gives no process list: " + no_process_list_;
    }
}

}  // namespace pinbench
