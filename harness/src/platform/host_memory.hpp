// The host memory limits the sweep kind's max_pinnable (docs/kinds.md) and `pinbench budget`
// (docs/budget.md) read or set.
// Implemented in harness/src/platform/host_memory_{posix,win32}.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace pinbench {

// The physical memory the OS reports, for the "max pinnable over host RAM" ratio only: never
// used to size a search (the GPU machine is a VM whose memory appears as it is used).
std::optional<std::uint64_t> host_ram_total();

// The host memory available now for a new allocation without swapping: Linux MemAvailable
// (/proc/meminfo), Windows GlobalMemoryStatusEx's ullAvailPhys. What `pinbench budget` sizes
// every request against (docs/budget.md), read again before each one. Nothing where unreadable.
std::optional<std::uint64_t> host_ram_available();

// Limits this process's address space to what it maps now plus `extra` bytes (POSIX
// RLIMIT_AS), so that an allocation above the limit fails in the API that asks for it: a pin
// larger than the run is allowed fails for real. Returns the limit set, or nothing with `why`
// where it cannot be set (Windows: not written yet; a Job Object memory limit would do it).
std::optional<std::uint64_t> limit_address_space(std::uint64_t extra, std::string* why);

}  // namespace pinbench
