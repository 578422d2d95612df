// What the memory probes saw at one instant.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench {

// One reading: bytes, or "not available" with the reason (never a made-up 0).
// JSON: an integer, or {"unavailable": "reason"}.
struct Reading {
    std::optional<std::int64_t> bytes;
    std::string unavailable;  // reason when bytes is empty

    static Reading of(std::int64_t value) { return {value, {}}; }
    static Reading not_available(std::string why) { return {std::nullopt, std::move(why)}; }
    bool available() const { return bytes.has_value(); }
    friend bool operator==(const Reading&, const Reading&) = default;
};

// Readings keyed by a stable metric key:
//   cuda.free, cuda.total                      cudaMemGetInfo in the measuring process
//   nvml.<i>.used, .reserved, .free, .total    NVML device memory of NVML device index i
//   nvml.<i>.process_used                      NVML per-process memory of the measuring pid
//   dxgi.local.usage, dxgi.local.budget        IDXGIAdapter3::QueryVideoMemoryInfo (Windows)
//   dxgi.nonlocal.usage, dxgi.nonlocal.budget
//   pdh.process.dedicated, pdh.process.shared  "GPU Process Memory(pid_*)" counters (Windows)
//   pdh.adapter.dedicated, pdh.adapter.shared  "GPU Adapter Memory(*)" counters (Windows)
using Readings = std::map<std::string, Reading>;

// Which way a key moves when memory is consumed: "usage" goes up, "available" goes down,
// "fixed" is a capacity (total, budget) that should not move.
enum class Direction { usage, available, fixed };
// Which budget a key belongs to. The reservation rule is about dedicated memory (VRAM);
// shared memory (DXGI NON_LOCAL, PDH shared) is a different budget, reported beside it.
enum class Budget { dedicated, shared };

struct KeyInfo {
    Direction direction;
    Budget budget;
};
// Derived from the key's spelling: "*.free" is available, "*.total" / "*.budget" fixed, the
// rest usage; "dxgi.nonlocal.*" and "*.shared" are the shared budget.
KeyInfo describe_key(std::string_view key);

// describe_key's rule as data, which the metric catalog exports so that pinreport applies the
// same rule (reports/pinreport/probe_keys.py): a key is `available` (free memory: a cost is a
// fall) with one of the first suffixes, else `fixed` (total, budget: never a cost) with one of
// the second, else `usage`; it is of the shared budget with one of the prefixes or last suffixes.
struct KeyRule {
    std::vector<std::string_view> available_suffixes, fixed_suffixes, shared_prefixes, shared_suffixes;
};
const KeyRule& key_rule();

// When a snapshot was read, on the machine-wide monotonic clock (steady_clock: CLOCK_MONOTONIC,
// QueryPerformanceCounter), so the parent's device watch can line it up with what it saw.
// From `stable_ns` to `end_ns` the readings did not move: the measuring process was idle.
struct SteadyWindow {
    std::int64_t begin_ns = 0, stable_ns = 0, end_ns = 0;  // 0: not recorded (older files)
};

struct Snapshot {
    std::string label;     // "after_context", "after_alloc", "after_first_use", "after_free", ...
    double t_ms = 0;       // since the repeat started
    double settle_ms = 0;  // how long the probes took to become stable
    bool stable = true;    // false when the settle loop gave up
    SteadyWindow window;
    Readings readings;
};

// The cost a key reports between two snapshots, positive when memory was consumed:
// after - before for usage keys, before - after for available keys. Empty when either
// reading is unavailable or the key is fixed.
std::optional<std::int64_t> cost_between(std::string_view key, const Reading& before, const Reading& after);

void to_json(nlohmann::json& j, const Reading& r);
void from_json(const nlohmann::json& j, Reading& r);
void to_json(nlohmann::json& j, const Snapshot& s);
void from_json(const nlohmann::json& j, Snapshot& s);

}  // namespace pinbench
