// The child side of `pinbench budget` (docs/budget.md): one phase of one API family's search in
// a process of its own, so that a failure that poisons the process never reaches the caller or
// the next phase. Started by budget/budget.cpp as the child mode kBudgetChildMode, which
// harness/cli/command_internal.cpp hands to run/child.cpp.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "pinbench/cuda/nvml.hpp"

namespace pinbench {

// The child mode of a budget phase (run/child.hpp's ChildMode; the program registers it).
inline constexpr const char* kBudgetChildMode = "budget";

// What ended a phase's search ("stopped_by"): the first two are the driver's limit, the others
// left the real limit above what was found.
namespace budget_stop {
inline constexpr const char* driver = "driver";                    // a pin call failed
inline constexpr const char* silent_fallback = "silent_fallback";  // it succeeded, memory not pinned
inline constexpr const char* cap = "cap";                          // --cap reached
inline constexpr const char* time_limit = "time_limit";            // --time-limit reached
inline constexpr const char* host_available = "host_available";    // available host memory - keep-free
// A limit of this process's other than the host's (budget/budget_limits.hpp): a cgroup's or a job
// object's room less keep-free (memory_limit), the process's own address space or commit less a
// slack (address_space). The phase's "limit" names it.
inline constexpr const char* memory_limit = "memory_limit";
inline constexpr const char* address_space = "address_space";
// A group's OOM counters (memory.events' oom, oom_kill) moved while the phase pinned: it stopped
// at once, whoever's memory ran out.
inline constexpr const char* oom_event = "oom_event";
// Not a phase's: the parent's word for a search it did not run (the single phase under
// --held-only, budget/budget.cpp); its bytes are null, never 0.
inline constexpr const char* not_measured = "not_measured";
}  // namespace budget_stop

// The phases, named in the request's "phase":
//   "single"  the largest single pin: doubling from the chunk up to the cap, then bisection in
//             chunks between the last pin that worked and the first that did not; each pin held
//             only while it is checked (the driver's view: not_pinned_reason) and used by the GPU
//   "held"    the total held at once: chunk after chunk, kept, until one fails; the device's free
//             memory after each chunk and the probes before and at the total
// Both stop at the cap, at the phase's time limit, and before asking for more than the limits of
// this process allow now (budget/budget_limits.hpp's allowance: the host's available memory, each
// cgroup's or job's room, less keep_free; the address space's less a slack; read again before
// every request), and at once when a group's OOM counters move; after the first failed call both
// release what they hold and pin `small_bytes` again in the same process: it works (the failure
// was clean) or not (it poisons). Each request is announced on stderr first ("pinbench budget
// child PID: holding H B, asking for A B"), so that the parent can say where an OOM kill struck.
// With "cap_first" (the held phase reached the cap in chunks), "single" first pins the cap at
// once: when that works it is the answer ("first_try" and the one pin in "tried"); when it fails
// the record holds only "first_try", and the caller searches in a fresh process.
// Request: family (an API variant's spelling), phase, cap, chunk, keep_free, small_bytes,
// time_limit_ms, cap_first (optional), wsl (optional: the host's memory is a WSL2 VM's). Returns the phase's
// record (docs/budget.md, "The document").
nlohmann::json budget_phase(const nlohmann::json& request, const Nvml* nvml);

// The line a child writes before each request, and its reading back from a child's output (the
// last one): what the child held and asked for when it was killed. Nothing where none was written.
struct Asking {
    std::uint64_t pid = 0;  // the child's
    std::uint64_t holding = 0;
    std::uint64_t asking = 0;
};
std::string asking_line(const Asking& a);
std::optional<Asking> last_asking(const std::string& output);

}  // namespace pinbench
