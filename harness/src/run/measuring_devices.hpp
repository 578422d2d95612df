// What the measuring child opens and reads, for every kind and for the controls: contexts on
// N devices, every probe of them, and one unsettled read. Host code: uses the CUDA core through
// its headers only.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pinbench/cuda/device.hpp"
#include "pinbench/cuda/host_buffer.hpp"
#include "pinbench/cuda/nvml.hpp"
#include "pinbench/probes/probe.hpp"
#include "pinbench/results/results.hpp"
#include "run/settle.hpp"

namespace pinbench {

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

}  // namespace pinbench
