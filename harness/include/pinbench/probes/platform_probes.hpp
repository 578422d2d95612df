// Probes that exist only on some operating systems. Windows: DXGI QueryVideoMemoryInfo for the
// adapter whose LUID matches the CUDA device (read inside the measuring process), PDH GPU
// memory counters (what Task Manager shows). Elsewhere the same keys read "not available".
// Implemented in harness/src/probes/platform_probes_{win32,posix}.cpp.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <vector>

#include "pinbench/probes/environment_facts.hpp"
#include "pinbench/probes/probe.hpp"

namespace pinbench {

using Luid = std::array<std::uint8_t, 8>;

// Probes for the adapter with this LUID (from cudaDeviceProp::luid), observing process `pid`.
// An absent LUID (TCC, Linux) yields probes whose readings say why they are unavailable.
std::vector<std::unique_ptr<Probe>> make_platform_probes(const std::optional<Luid>& luid, std::uint32_t pid);

// Adapters the OS graphics stack lists (DXGI, and DXCore for TCC/MCDM compute-only adapters):
// description, LUID as hex, dedicated video memory, which API listed it. An empty array
// with a note elsewhere. Used by `pinbench doctor` to check that the LUID matches.
nlohmann::json list_os_adapters();

// The OS facts of the environment record: os name and build, host RAM, hostname; on Windows
// also hardware-accelerated GPU scheduling, the session, the sysmem fallback policy.
OsFacts os_facts();

// This process's id.
std::uint32_t current_process_id();

}  // namespace pinbench
