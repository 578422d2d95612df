// Every probe the measuring (child) process reads for a set of devices.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pinbench/cuda/nvml.hpp"
#include "pinbench/probes/probe.hpp"

namespace pinbench {

// The NVML index of each CUDA device, matched by UUID / PCI bus id (never by position).
std::vector<std::optional<unsigned>> nvml_indices_of(const std::vector<int>& cuda_devices, const Nvml& nvml);

// Which NVML devices the probes read: the measured CUDA devices, or every CUDA device this
// process can see (never a GPU that CUDA_VISIBLE_DEVICES hides: its neighbours are not ours).
enum class NvmlScope { measured_devices, every_device };

// cudaMemGetInfo for `devices[0]`, NVML (and this pid's process memory) for the NVML devices of
// `scope`, the platform probes (DXGI, PDH) for the first device's adapter. NVML keys are named
// by NVML index (nvml.<i>.*). `nvml` may be null: NVML keys are then absent.
ProbeSet make_measuring_probes(const std::vector<int>& devices, const Nvml* nvml,
                               NvmlScope scope = NvmlScope::measured_devices);

}  // namespace pinbench
