// Is the GPU too busy to measure? `pinbench run` asks this of the null control's window before
// the first run and of the attempts after it: when the window and the first attempts were all
// disturbed by the same neighbour (a pid common to all), the run stops at once with exit 3
// naming it instead of retrying for an hour (docs/disturbance.md, "A busy GPU"). Where NVML
// names no process (WSL2, WDDM: the watch sees device usage move, never who moved it), a
// neighbour shows only in the attempts during which it happened to move, so one clean attempt
// proves nothing: the run stops once at least `attempts` attempts were disturbed and they are
// at least half of all attempts since the window, or, past `within`, whatever the clean ones
// (measured on the H200 with NVML's process lists refused, beside a neighbour allocating and
// freeing every few hundred ms: one run's attempts were about half disturbed, another's a third,
// and the earlier rule, a clean attempt disarms, never stopped either).
// Pure: the caller passes steady-clock times, so tests run it on made-up timelines.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

namespace pinbench {

struct BusyGpuLimits {
    int attempts = 3;                         // disturbed attempts after a disturbed null window
    std::chrono::milliseconds within{45000};  // or fewer, once this long has passed since the window
};

class BusyGpuCheck {
public:
    explicit BusyGpuCheck(BusyGpuLimits limits = {}) : limits_(limits) {}

    // The null control's window before the first run: its evidence (the "evidence" array of a
    // disturbance record; empty or null: quiet, and the check never fires) and when it began.
    void null_window(const nlohmann::json& evidence, std::int64_t began_ns);

    // One attempt ended at `ended_ns` with this disturbance record (null, or {"evidence": [...]};
    // no evidence: clean, and the check never fires again). Returns the text naming the
    // neighbour once the GPU is found busy, nullopt otherwise.
    std::optional<std::string> attempt(const nlohmann::json& disturbance, std::int64_t ended_ns);

private:
    void take(const nlohmann::json& evidence);
    BusyGpuLimits limits_;
    bool armed_ = false;
    std::int64_t since_ns_ = 0;
    int attempts_ = 0, clean_ = 0, moves_ = 0;     // disturbed and clean attempts since the window
    std::optional<std::set<std::uint32_t>> pids_;  // common to every window so far; nullopt: none named yet
    std::map<std::uint32_t, std::string> names_;
};

}  // namespace pinbench
