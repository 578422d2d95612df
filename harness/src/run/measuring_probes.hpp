// Every probe the measuring (child) process reads for a set of devices.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "pinbench/nvml.hpp"
#include "pinbench/probe.hpp"

namespace pinbench {

// cudaMemGetInfo for `devices[0]`, NVML for every device (and this pid's process memory), the
// platform probes (DXGI, PDH) for the first device's adapter. `nvml` may be null: NVML keys are
// then absent and `nvml_why` says why (recorded in the environment by the caller).
ProbeSet make_measuring_probes(const std::vector<int>& devices, const Nvml* nvml);

}  // namespace pinbench
