#include "run/replay_child.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>

#include "pinbench/platform/subprocess.hpp"
#include "pinbench/replay/replay_script.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "run/disturbance.hpp"
#include "run/settle.hpp"

namespace pinbench {

namespace {

// A neighbour (pid 4242, named as injected) that changes its memory on NVML device 0 while this
// child runs: the parent judges it as it would judge its own watch.
// A neighbour NVML cannot name (no process list, as under WSL2) that allocates while the child
// measures: device usage moves at a busy moment, which the watch alone cannot tell apart from
// the child's own allocation.
nlohmann::json injected_hidden_neighbour(std::int64_t bytes) {
    const std::int64_t t = steady_ns(SteadyClock::now());
    const std::int64_t base = std::int64_t{100} << 20;
    const std::string why = "nvmlDeviceGetComputeRunningProcesses: Not Supported (injected by replay script)";
    auto sample = [&](std::int64_t at, std::int64_t held) {
        return nlohmann::json{{"t_ns", at}, {"used", {held}}, {"no_process_list", why}};
    };
    return {{"devices", {0}}, {"samples", {sample(t, base), sample(t + 1000, base + bytes)}}};
}

nlohmann::json injected_neighbour(std::int64_t bytes) {
    const std::int64_t t = steady_ns(SteadyClock::now());
    const std::int64_t base = std::int64_t{100} << 20;
    auto sample = [&](std::int64_t at, std::int64_t held) {
        return nlohmann::json{{"t_ns", at},
                              {"used", {held}},
                              {"processes",
                               {{{"pid", 4242},
                                 {"device", 0},
                                 {"used", held},
                                 {"name", "neighbour (injected by replay script)"}}}}};
    };
    return {{"devices", {0}}, {"samples", {sample(t, base), sample(t + 1000, base + bytes)}}};
}

}  // namespace

RepeatRecord replay_repeat(const nlohmann::json& request, nlohmann::json* injected_watch) {
    const auto& replay = request.at("replay");
    const ResultsDocument source = load_results(replay.at("source").get<std::string>());
    const std::string script_path = replay.value("script", "");
    const ReplayScript script = script_path.empty() ? ReplayScript{} : load_replay_script(script_path);
    const std::string run_id = request.at("run_id").get<std::string>();
    const int repeat = request.at("repeat").get<int>();

    const int attempt = request.value("attempt", 0);
    std::int64_t hidden_bytes = 0;  // a hidden neighbour's allocation, counted in the costs
    if (auto injection = injection_for(script, run_id, repeat)) {
        switch (injection->what) {
            case ReplayInjection::What::slow:
                std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(injection->ms));
                break;
            case ReplayInjection::What::disturbance:
                if (!injection->process_lists) {
                    // The watch never names anyone: every attempt's trace says so.
                    const bool here = injection->attempts < 0 || attempt < injection->attempts;
                    if (here) hidden_bytes = injection->bytes;
                    *injected_watch = injected_hidden_neighbour(here ? injection->bytes : 0);
                } else if (injection->attempts < 0 || attempt < injection->attempts) {
                    *injected_watch = injected_neighbour(injection->bytes);
                }
                break;
            case ReplayInjection::What::crash:
                crash_this_process();  // a crash on every platform (std::abort exits 3 on Windows)
            case ReplayInjection::What::hang:
                for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
            case ReplayInjection::What::cuda_error:
                throw CudaError("cudaMemcpyAsync", 700, "cudaErrorIllegalAddress",
                                "an illegal memory access was encountered (injected by replay script)");
        }
    }
    for (const auto& run : source.runs) {
        if (run.run.id != run_id) continue;
        if (run.repeats.empty() && run.status == Status::waived) {
            // WAIVED where it was measured (too few GPUs, an unsupported API): replayed as such.
            RepeatRecord waived;
            waived.status = Status::waived;
            waived.error = run.reason;
            return waived;
        }
        // The source's attempt for this index: its last (the one that counted), as run_status reads it.
        const RepeatRecord* found = nullptr;
        for (const auto& r : run.repeats) {
            if (r.index == repeat && (found == nullptr || r.attempt >= found->attempt)) found = &r;
        }
        if (found != nullptr) {
            RepeatRecord out = *found;
            out.attempt = 0;
            out.disturbance = nullptr;
            apply_transforms(script, run_id, out);
            if (hidden_bytes != 0 && !out.snapshots.empty()) {
                for (const auto& [key, reading] : out.snapshots.front().readings) {
                    if (is_device_level_key(key) && describe_key(key).direction != Direction::fixed) {
                        offset_probe_cost(run_id, out, key, hidden_bytes);
                    }
                }
            }
            return out;
        }
        RepeatRecord missing;
        missing.status = Status::failed;
        missing.error = "replay source has no repeat " + std::to_string(repeat) + " for run " + run_id;
        return missing;
    }
    throw InputError("replay source has no run " + run_id);
}

std::map<std::string, Stopping> early_stops(const ResultsDocument& source) {
    std::map<std::string, Stopping> stops;
    for (const auto& run : source.runs) {
        if (run.stopping && run.stopping->stopped_at > 0 &&
            run.stopping->stopped_at < run.stopping->planned) {
            stops.emplace(run.run.id, *run.stopping);
        }
    }
    return stops;
}

}  // namespace pinbench
