#include "platform/host_memory.hpp"

#include <windows.h>

namespace pinbench {

std::optional<std::uint64_t> host_ram_total() {
    MEMORYSTATUSEX memory{};
    memory.dwLength = sizeof memory;
    if (!::GlobalMemoryStatusEx(&memory)) return std::nullopt;
    return memory.ullTotalPhys;
}

std::optional<std::uint64_t> host_ram_available() {
    MEMORYSTATUSEX memory{};
    memory.dwLength = sizeof memory;
    if (!::GlobalMemoryStatusEx(&memory)) return std::nullopt;
    return memory.ullAvailPhys;
}

std::optional<std::uint64_t> limit_address_space(std::uint64_t, std::string* why) {
    if (why) {
        *why = "enforce_host_limit is POSIX only (RLIMIT_AS); a Job Object memory limit is not written yet";
    }
    return std::nullopt;
}

}  // namespace pinbench
