// What the parent's device watch did over one `pinbench run`, for the results' controls: its
// reads and their cost, the null windows taken between runs, and whether NVML gave it process
// lists (docs/disturbance.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pinbench/cuda/nvml.hpp"
#include "run/settle.hpp"
#include "run/watched_attempt.hpp"

namespace pinbench {

class WatchSummary {
public:
    explicit WatchSummary(const WatchOptions& options)
        : options_(options), last_null_window_(SteadyClock::now()) {}

    // One watched attempt's reads, and why its watch had no process list (the first reason kept).
    void add(const WatchedAttempt& attempt);

    // Between runs, a null window (the noise seen while this invocation ran): the devices watched
    // with nothing of ours running, at most every options.null_every; none without NVML.
    void between_runs(const Nvml* nvml, const WatchPlan& plan, const std::string& after_run);

    // controls.watch and controls.null_windows; `watched`: the parent had NVML.
    void write(nlohmann::json& controls, bool watched) const;

private:
    const WatchOptions& options_;
    long long reads_ = 0;
    double read_ms_ = 0;
    nlohmann::json null_windows_ = nlohmann::json::array();
    SteadyClock::time_point last_null_window_;
    // Why the watch had no process list ("" while it had one): it judges at device level only,
    // and every run's repeats must agree (cost_outliers) as they must beside a seen neighbour.
    std::string no_process_list_;
};

}  // namespace pinbench
