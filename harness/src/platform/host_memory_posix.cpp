#include "platform/host_memory.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

namespace pinbench {

std::optional<std::uint64_t> host_ram_total() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages <= 0 || page <= 0) return std::nullopt;
    return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page);
}

std::optional<std::uint64_t> host_ram_available() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key, unit;
    std::uint64_t value = 0;
    while (meminfo >> key >> value) {
        std::getline(meminfo, unit);
        if (key == "MemAvailable:") return value * 1024;  // kB
    }
    return std::nullopt;
}

std::optional<std::uint64_t> limit_address_space(std::uint64_t extra, std::string* why) {
    // The first field of /proc/self/statm is the mapped size in pages (Linux).
    std::ifstream statm("/proc/self/statm");
    std::uint64_t pages = 0;
    if (!(statm >> pages) || pages == 0) {
        if (why) *why = "cannot read this process's mapped size (/proc/self/statm)";
        return std::nullopt;
    }
    const std::uint64_t limit = pages * static_cast<std::uint64_t>(::sysconf(_SC_PAGESIZE)) + extra;
    rlimit rl{};
    if (::getrlimit(RLIMIT_AS, &rl) != 0) rl.rlim_max = RLIM_INFINITY;
    rl.rlim_cur =
        rl.rlim_max != RLIM_INFINITY && limit > rl.rlim_max ? rl.rlim_max : static_cast<rlim_t>(limit);
    if (::setrlimit(RLIMIT_AS, &rl) != 0) {
        if (why) *why = std::string("setrlimit(RLIMIT_AS) failed: ") + std::strerror(errno);
        return std::nullopt;
    }
    return limit;
}

}  // namespace pinbench
