// What the kinds' measurements share beyond the measuring child's devices and probes
// (run/measuring_devices.hpp): reading the kind parameters of a planned run, the free-VRAM
// fill's limits, and pinning with an out-of-memory answer instead of a crash. Host code: uses
// the CUDA core through its headers only.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pinbench/cuda/device.hpp"
#include "pinbench/cuda/host_buffer.hpp"
#include "pinbench/cuda/nvml.hpp"
#include "pinbench/probes/probe.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/scenario/plan.hpp"
#include "run/measuring_devices.hpp"
#include "run/settle.hpp"
#include "scenario/kind_spec.hpp"

namespace pinbench::kinds {

// The step of the device filler and of the largest-block search where a scenario gives no
// `resolution` (capacity, fragmentation, sweep's max_pinnable): 2 MiB, the CUDA allocator's
// large-page granule.
inline constexpr std::uint64_t default_resolution = std::uint64_t{2} << 20;

// The kind parameters of a run (docs/kinds.md); throw InputError when absent or mistyped.
std::uint64_t param_bytes(const PlannedRun& run, const char* name);
int param_int(const PlannedRun& run, const char* name);
double param_number(const PlannedRun& run, const char* name);
std::string param_choice(const PlannedRun& run, const char* name);
// The same for a parameter the plan may lack (plans written before it existed): `fallback` then.
std::uint64_t param_bytes_or(const PlannedRun& run, const char* name, std::uint64_t fallback);
std::string param_choice_or(const PlannedRun& run, const char* name, const char* fallback);

// Why `free_target` cannot be filled to: it does not lie below device 0's memory, or below what
// is free after creating the context (`info`). The fill of capacity and max_pinnable.
std::optional<std::string> free_target_not_below(const MemInfo& info, std::uint64_t free_target);

// What the measuring child knows once device 0 has a context: the run's GPUs exist
// (open_devices or require_devices checked them) and device 0's memory.
Machine with_device0(const PlannedRun& run, const Devices& devices);

// Throws UnsupportedError (the repeat is WAIVED) with the reason, when there is one.
void throw_if_waived(const std::optional<std::string>& why);

// Pins `count` buffers of `bytes` through `api`. Out of host or pinnable memory becomes
// UnsupportedError (the run is WAIVED: more than this machine can pin), never a crash.
std::vector<std::unique_ptr<HostBuffer>> pin_buffers(ApiVariant api, std::uint64_t bytes, int count);

// The page backing of each buffer (huge pages or not) for the repeat's data.
nlohmann::json backing_of(const std::vector<std::unique_ptr<HostBuffer>>& buffers);

}  // namespace pinbench::kinds
