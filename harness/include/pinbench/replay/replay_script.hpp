// Replay backend scripts: how a real results file is transformed into labelled, replayed
// results (relabel the driver, shift or scale a metric, inject a crash, a hang or a CUDA
// error). Format: docs/replay.md. Replayed output is never a measurement.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pinbench/results/results.hpp"

namespace pinbench {

inline constexpr int replay_script_version = 1;

struct ReplayTransform {
    enum class Op { offset, scale, set } op = Op::offset;
    std::string runs;   // glob over run ids ('*' and '?'), e.g. "quick/cudaMallocHost/*"
    std::string probe;  // probe key whose cost changes ("cuda.free", "nvml.0.used") or a timing ("alloc")
    double value = 0;   // offset: bytes (or ms) added to the cost; scale: factor on the cost
    nlohmann::json data = nlohmann::json::object();  // set: repeat data fields (bytes or booleans) replaced
    SourceLocation where;                            // of `value` in the script, for errors
};

struct ReplayInjection {
    // disturbance: the repeat replays normally, and the child hands the parent a watch trace in
    // which a neighbour process changes its device memory by `bytes` (docs/replay.md).
    // slow: the child sleeps `ms` before answering (a measurement that takes time, for tests
    // that cancel a run halfway).
    enum class What { crash, hang, cuda_error, disturbance, slow } what = What::crash;
    std::string runs;   // glob over run ids
    int repeat = -1;    // -1: every repeat of the matching runs
    int attempts = -1;  // disturbance: attempts 0..attempts-1 are disturbed; -1: every attempt
    std::int64_t bytes = std::int64_t{256} << 20;  // disturbance: how much the neighbour moves
    // disturbance, process_lists: false: NVML gives no process list (WSL2) and the neighbour
    // allocates while the child measures, so its bytes land in the repeat's device-level costs
    // and the watch sees device usage move at a busy moment only.
    bool process_lists = true;
    double ms = 0;  // slow: how long the child takes
};

struct ReplayScript {
    std::string path;
    std::optional<std::string> driver_release;  // relabel environment.driver.release
    std::optional<std::string> driver_model;    // relabel environment.devices[*].driver_model.current
    std::vector<ReplayTransform> transforms;
    std::vector<ReplayInjection> injections;
};

// Parses a YAML script; throws InputError "FILE:LINE:COL: message" on bad input.
ReplayScript load_replay_script(const std::string& path);
ReplayScript parse_replay_script(const std::string& text, const std::string& path_for_messages);

bool glob_match(const std::string& pattern, const std::string& text);

// Applies every matching transform to one repeat. `set` replaces fields of the repeat's data
// that it already has (max_pinnable's bytes, say; a field it lacks is never invented). Cost transforms move
// the probe key's readings in every snapshot after "after_context" except "after_free" (offset: the cost
// grows by `value` bytes, respecting the key's direction; scale: cost' = value * cost), so metrics recomputed
// from the snapshots shift exactly. Timing transforms change timings_ms[probe].
void apply_transforms(const ReplayScript& script, const std::string& run_id, RepeatRecord& repeat);
// Adds `bytes` to the cost of probe key `key` in every snapshot after the baseline (as an
// offset transform does; a hidden neighbour's allocation).
void offset_probe_cost(const std::string& run_id, RepeatRecord& repeat, const std::string& key,
                       std::int64_t bytes);

// Throws InputError "FILE:LINE:COL: message" (the transform's value in the script) when a
// transform would take a reading or timing out of range (checked arithmetic: a memory reading
// stays 0 to 2^63-1 bytes, a timing finite and >= 0).
// check_transforms applies the script to a copy of every repeat of `source` first, so that the
// run is refused before any child starts.
void check_transforms(const ReplayScript& script, const ResultsDocument& source);

// The injection for this repeat, if any (first match wins).
std::optional<ReplayInjection> injection_for(const ReplayScript& script, const std::string& run_id,
                                             int repeat);

// Relabels the environment record (driver release / model) and returns it.
nlohmann::json relabel_environment(const ReplayScript& script, nlohmann::json environment);

}  // namespace pinbench
