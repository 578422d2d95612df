// Did another process move device memory while a repeat measured? The parent watches the
// devices through NVML (run/device_watch.hpp) while each child runs; this file judges what the
// watch saw, after the child has exited, and names the evidence. Pure host code, CPU-tested:
// the replay backend feeds it injected traces. The rules are in docs/disturbance.md.
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "pinbench/probes/snapshot.hpp"
#include "pinbench/results/results.hpp"

namespace pinbench {

// One process on a watched device, as NVML lists it.
struct GpuProcessUse {
    std::uint32_t pid = 0;
    unsigned device = 0;     // NVML index
    std::int64_t used = -1;  // bytes; -1: not available (WDDM)
    bool graphics = false;   // listed as a graphics (display, D3D, GL) client
    friend bool operator==(const GpuProcessUse&, const GpuProcessUse&) = default;
};

// What the watch read at one instant: device-level used bytes per watched device (in the
// order of WatchTrace::devices, -1 unknown) and every process on them, sorted by (device, pid).
struct WatchSample {
    std::int64_t t_ns = 0;      // steady clock, as SteadyWindow
    std::int64_t since_ns = 0;  // the read before this one, which still saw the previous state
    std::vector<std::int64_t> used;
    std::vector<GpuProcessUse> processes;
    // Why NVML gave no process list on some watched device ("" when every list was read): under
    // WSL2 (and where a shim refuses them) the watch sees device usage only.
    std::string no_process_list;
    // When the read ended (0: at t_ns): what it saw held at some instant from t_ns to this one.
    std::int64_t done_ns = 0;
};

// A watch of one window. Only changes are kept (and the first and last reads), so a quiet
// window of seconds costs a few samples.
struct WatchTrace {
    std::vector<unsigned> devices;  // NVML indices watched
    std::vector<WatchSample> samples;
    long long reads = 0;                         // NVML polls made
    double read_ms_total = 0;                    // time they took (the watch's cost)
    std::map<std::uint32_t, std::string> names;  // process names, where the OS tells them
    // Why some read had no process list ("" when every read had them): the watch saw device
    // usage only, so who moved it is unknown and the per-process evidence is missing.
    std::string no_process_list;
};

// Keeps `sample` when it differs from the last kept one (or is the first); a sample without a
// process list marks the trace (no_process_list) whether it is kept or not.
void append_if_changed(WatchTrace& trace, WatchSample sample);

// The window of one attempt, in the parent's terms.
struct AttemptWindow {
    std::int64_t begin_ns = 0, end_ns = 0;  // child started .. exited (and the return wait)
    std::set<std::uint32_t> own_pids;       // the child and the worker processes it started
    std::vector<SteadyWindow> idle;         // the child's snapshots (stable_ns..end_ns is idle)
    bool returned = true;                   // device usage came back to its level before the child
    std::vector<std::int64_t> return_gap;   // per watched device: after - before, when not returned
};

struct Evidence {
    std::string what;        // process_appeared, process_left, process_memory, idle_move, not_returned,
                             // negative_cost, outlier, unverified (no process list, too few repeats)
    unsigned device = 0;     // NVML index
    std::uint32_t pid = 0;   // 0: no process named
    std::int64_t bytes = 0;  // how much moved
    std::int64_t t_ns = 0;
    std::string text;  // one line a person reads
};

struct Disturbance {
    std::vector<Evidence> evidence;
    std::set<unsigned> devices;  // NVML indices with evidence
    bool any() const { return !evidence.empty(); }
};

// Judges one attempt: a process other than ours appeared, left, or changed its used memory;
// device usage moved while the child was idle; or usage did not return to its level before
// the child once the child had exited.
Disturbance judge_attempt(const WatchTrace& trace, const AttemptWindow& window, std::int64_t tolerance);

// The child's own view: a device-level usage key that fell below its first snapshot by more
// than `tolerance` (nothing the child does frees memory it did not allocate itself).
void add_negative_costs(const std::vector<Snapshot>& snapshots,
                        const std::map<std::string, unsigned>& key_device, std::int64_t tolerance,
                        Disturbance& d);

// Repeats (indices into `repeats`) whose device-level costs on `devices` (NVML indices), from
// their first snapshot to each later one, stray from the run's median by more than `tolerance`;
// *why gets one line for each. With a neighbour on the GPU such a repeat may have been disturbed
// where the watch could not see it (a neighbour that pinned and unpinned while the child itself
// allocated). Fewer than 3 repeats: none.
std::vector<std::size_t> cost_outliers(const std::vector<const RepeatRecord*>& repeats,
                                       const std::set<unsigned>& devices, std::optional<unsigned> cuda0,
                                       std::int64_t tolerance, std::vector<std::string>* why);

// Keys that see the whole device (every process's memory): a neighbour moves them. The
// per-process keys (nvml.<i>.process_used, dxgi.*, pdh.process.*) do not see neighbours.
bool is_device_level_key(const std::string& key);

// The NVML device a device-level key belongs to: nvml.<i>.* -> i, cuda.free -> the NVML index
// of CUDA device 0 (`cuda0`), pdh.adapter.* -> cuda0; nullopt for per-process keys.
std::optional<unsigned> device_of_key(const std::string& key, std::optional<unsigned> cuda0);

// The disturbed probe keys among `keys`: device-level keys of devices with evidence.
std::vector<std::string> disturbed_keys(const std::set<std::string>& keys, const Disturbance& d,
                                        std::optional<unsigned> cuda0);

// JSON of a disturbance for the results file: {"probes": [...], "evidence": [{what, device,
// pid, name, bytes, t_ns, text}]}, or null when there is none.
nlohmann::json disturbance_json(const Disturbance& d, const std::vector<std::string>& probes);

// Bytes as a person reads them in evidence ("+256 MiB", "-2 MiB", "+4 KiB").
std::string signed_bytes_text(std::int64_t bytes);

}  // namespace pinbench
