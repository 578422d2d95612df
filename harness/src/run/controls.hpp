// Controls: proof that each probe sees what it claims to see, on this machine, now.
//   null      allocate nothing: each probe's noise (and readings for its granule)
//   positive  cudaMalloc + touch S bytes: every dedicated-memory probe must move by S
//   host      pin S bytes: DXGI NON_LOCAL must move by about S (Windows; n/a elsewhere)
//   cross     NVML read by this (observing) process and cudaMemGetInfo read in the measuring
//             process must agree on the same allocation
// A probe that cannot see a known allocation fails the control: it never passes silently.
#pragma once

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "pinbench/cuda/nvml.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/results/run_metrics.hpp"
#include "run/child_launcher.hpp"
#include "run/watched_attempt.hpp"

namespace pinbench {

struct ControlOptions {
    std::uint64_t positive_bytes = std::uint64_t{256} << 20;
    std::int64_t tolerance = std::int64_t{2} << 20;  // how far a probe may miss S
    int null_samples = 100;                          // spread over the null window
    std::chrono::milliseconds null_window{2000};     // about as long as a repeat
    bool cross_check = true;
};

// Runs every control in child processes, each under the parent's device watch (`nvml`, the
// parent's, may be null; it also serves the cross-check). Each control is {"verdict": "PASS" |
// "FAIL" | "NOT APPLICABLE" | "DISTURBED", ...details}: DISTURBED when another process moved
// device memory inside the control's window, with the evidence.
nlohmann::json run_controls(ChildLauncher& launcher, const Nvml* nvml, const ControlOptions& options,
                            const nlohmann::json& environment, const WatchOptions& watch);

// Verdicts from already-collected snapshots (pure; unit-tested on hand-made snapshots in
// harness/tests/cpu/controls_test.cpp).
nlohmann::json null_control_verdict(const std::vector<Snapshot>& samples);
nlohmann::json positive_device_verdict(const std::vector<Snapshot>& snaps, std::uint64_t bytes,
                                       std::int64_t tolerance);
nlohmann::json positive_host_verdict(const std::vector<Snapshot>& snaps, std::uint64_t bytes);

// True when no control says FAIL (nor DISTURBED, when `disturbed_fails`); *why lists them.
bool controls_passed(const nlohmann::json& controls, std::string* why, bool disturbed_fails = true);

// Granule per non-fixed key: the largest power of two (at most 64 MiB) dividing every reading
// of that key in the controls' snapshots and every run's snapshots. An upper bound on the
// probe's real step, tightened by every distinct reading.
Granules measure_granules(const ResultsDocument& doc);

}  // namespace pinbench
