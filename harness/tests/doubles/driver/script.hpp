// What a test scripts the double to be: its devices, the device memory a context and each pinning
// API cost, and its failures. Read from the key=value file that PINBENCH_DRIVER_DOUBLE names
// (docs/test-double.md lists the keys); without one, a single 1 GiB device where nothing costs.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace pinbench::driver_double {

inline constexpr const char* script_variable = "PINBENCH_DRIVER_DOUBLE";
inline constexpr int max_devices = 8;

// The device memory one pinning call costs: a fixed part plus a part per GiB pinned.
struct PinCost {
    std::uint64_t base_bytes = 0;
    std::uint64_t per_gib_bytes = 0;
    // Whole bytes for `pinned` bytes, rounded up (a part of a byte is still a byte on the device).
    std::uint64_t of(std::uint64_t pinned) const;
};

// A scripted failure of one entry point: its Nth call over every process of the test, and/or
// every call asking more than a size.
struct Failure {
    std::optional<std::uint64_t> nth_call;
    std::optional<std::uint64_t> above_bytes;
    int error = 2;  // CUDA_ERROR_OUT_OF_MEMORY / NVML_ERROR_UNKNOWN is asked by name in the file
};

struct Script {
    std::string path;  // empty: no file, the defaults
    int devices = 1;
    std::uint64_t total_memory = std::uint64_t{1} << 30;
    std::uint64_t reserved_memory = 0;  // used before any process: what the driver keeps
    std::uint64_t context_cost = 0;
    std::uint64_t init_cost = 0;  // per device, from cuInit: used, not listed
    std::uint64_t vmm_granularity = std::uint64_t{2} << 20;
    int cuda_driver_version = 12080;
    int compute_capability_major = 9;
    int compute_capability_minor = 0;
    // Keyed by pinning API ("cuMemHostAlloc") or API and flags ("cuMemHostAlloc:2").
    std::map<std::string, PinCost> pin_costs;
    std::map<std::string, Failure> failures;  // keyed by entry point
    std::set<std::string> blind;              // probes that do not move: "cuMemGetInfo", "nvml"
    // Host pinning (cuMemHostAlloc, cuMemAllocHost_v2, cuMemHostRegister_v2) in one process:
    // a call that would hold more than pin_limit fails (CUDA_ERROR_OUT_OF_MEMORY); after one
    // failed pinning call, with poison_after_failure, every later one fails too; a call through
    // an entry point of fallback_above that would hold more than its size succeeds without
    // pinning (the driver's queries then do not see the memory as pinned).
    std::optional<std::uint64_t> pin_limit;
    bool poison_after_failure = false;
    std::map<std::string, std::uint64_t> fallback_above;  // keyed by entry point
    int pin_delay_ms = 0;                                 // each pinning call sleeps this long
    // A fake cgroup folder every pinning call is charged to (memory_cgroup.hpp), and a neighbour
    // of the group that grows by neighbour_grows bytes just before the neighbour_grows_at-th
    // pinning call (counted over every process of the test).
    std::string memory_cgroup;
    std::uint64_t neighbour_grows = 0;
    std::uint64_t neighbour_grows_at = 0;
    bool nvml_process_memory_not_available = false;
    std::string state_path;  // the device state shared by every process of the test

    // The cost of `api` with `flags`: the flags' own line, else the API's, else nothing.
    PinCost pin_cost(const std::string& api, unsigned flags) const;
    // Index of the entry point among the failures (for the shared call counters).
    std::optional<std::size_t> counted_index(const std::string& entry) const;
    // The shared counter of the pinning calls neighbour_grows_at counts (after the failures').
    static constexpr std::size_t pin_call_counter = 31;
};

// The script PINBENCH_DRIVER_DOUBLE names; a malformed file stops the process with FILE:LINE and
// the reason on stderr (a test must not run on a script the double misread).
Script load_script();
// Parses script text; throws std::invalid_argument("LINE: reason").
Script parse_script(const std::string& text, const std::string& path);

}  // namespace pinbench::driver_double
