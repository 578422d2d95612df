// What every kind's measuring child shares: contexts on N devices, probes, timing, reading
// the kind parameters of a planned run, and pinning with an out-of-memory answer instead of a
// crash. Host code: uses the CUDA core through its headers only.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kinds/kind_definition.hpp"
#include "pinbench/device.hpp"
#include "pinbench/host_buffer.hpp"
#include "pinbench/nvml.hpp"
#include "pinbench/plan.hpp"
#include "pinbench/probe.hpp"
#include "pinbench/results.hpp"
#include "run/settle.hpp"

namespace pinbench::kinds {

// The step of the device filler and of the largest-block search where a scenario gives no
// `resolution` (capacity, fragmentation, sweep's max_pinnable): 2 MiB, the CUDA allocator's
// large-page granule.
inline constexpr std::uint64_t default_resolution = std::uint64_t{2} << 20;

double ms_between(SteadyClock::time_point a, SteadyClock::time_point b);

struct Devices {
    std::vector<int> ids;
    std::vector<std::unique_ptr<DeviceContext>> contexts;
    std::vector<std::unique_ptr<GpuUseWorkspace>> workspaces;

    void synchronize() const;
    // Opens device `id` (context and, when asked, a workspace); device 0 stays current.
    void open(int id, bool with_workspace);
    // Every buffer copied to every open device once (first GPU use).
    void use_everywhere(const std::vector<std::unique_ptr<HostBuffer>>& buffers) const;
};

// Throws UnsupportedError (WAIVED) when fewer than n CUDA devices exist.
void require_devices(int n);

// Contexts (and, when asked, GPU-use workspaces) on devices 0..n-1; device 0 ends current.
// Throws UnsupportedError when fewer devices exist.
Devices open_devices(int n, bool with_workspaces);

// Probes of the measuring child: cudaMemGetInfo for device 0, NVML for every CUDA device this
// process sees (by its NVML index), the platform probes for device 0's adapter.
ProbeSet all_device_probes(const Nvml* nvml);

// One unsettled read of every probe (for traces where settling would hide the creep).
Snapshot immediate_snapshot(const ProbeSet& probes, std::string label, SteadyClock::time_point start);

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
