// The device state file's layout and the bookkeeping on it that does not depend on the platform
// (used by device_state.cpp); device_state_posix.cpp and device_state_win32.cpp map it and lock
// it, each its own way (state_mapping.hpp).
#pragma once

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "device_state.hpp"

namespace pinbench::driver_double {

inline constexpr std::uint64_t state_magic = 0x70696e6264626c32;  // "pinbdbl2"
// An earlier layout of this double's own ("pinbdbl1", ...): a build directory keeps state files
// between builds, and an older double's state means nothing to this one, so it starts afresh.
inline bool earlier_state_magic(std::uint64_t magic) {
    return (magic >> 8) == (state_magic >> 8) && (magic & 0xff) >= '1' &&
           (magic & 0xff) < (state_magic & 0xff);
}
inline constexpr std::size_t max_processes = 64;

struct ProcessEntry {
    std::int64_t pid;  // 0: free
    std::uint64_t bytes[max_devices];
    std::uint64_t unlisted[max_devices];  // the driver's own for an initialised process: used, never listed
    std::uint32_t contexts;               // bit d: a context on device d
};

struct Layout {
    std::uint64_t magic;
    ProcessEntry processes[max_processes];
    std::uint64_t calls[DeviceState::max_counters];
};

// The entry of process `self`, made when absent and `create`; nullptr when absent otherwise.
inline ProcessEntry* own_entry(Layout& layout, std::int64_t self, bool create) {
    ProcessEntry* free_entry = nullptr;
    for (ProcessEntry& p : layout.processes) {
        if (p.pid == self) return &p;
        if (p.pid == 0 && free_entry == nullptr) free_entry = &p;
    }
    if (!create) return nullptr;
    if (free_entry == nullptr) {
        std::fprintf(stderr, "pinbench driver double: more than %zu processes\n", max_processes);
        std::abort();
    }
    *free_entry = ProcessEntry{};
    free_entry->pid = self;
    return free_entry;
}

// Reserved plus every live process's bytes on `device`.
inline std::uint64_t used_by_all(const Layout& layout, std::uint64_t reserved, int device) {
    std::uint64_t sum = reserved;
    for (const ProcessEntry& p : layout.processes) {
        if (p.pid != 0) sum += p.bytes[device] + p.unlisted[device];
    }
    return sum;
}

// The processes holding memory or a context on `device`.
inline std::vector<ProcessUse> processes_on(const Layout& layout, int device) {
    std::vector<ProcessUse> out;
    for (const ProcessEntry& p : layout.processes) {
        if (p.pid != 0 && (p.bytes[device] > 0 || (p.contexts & (1u << device)) != 0)) {
            out.push_back({p.pid, p.bytes[device]});
        }
    }
    return out;
}

}  // namespace pinbench::driver_double
