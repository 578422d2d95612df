// Memory on Windows: committed pages are backed only once touched, so a scripted device of some
// GiB costs only what is used. VMM physical memory is committed inside the reserved range when it
// is mapped: the harness maps each allocation once, so its bytes need no section of their own
// (a section mapped into a reservation needs placeholders, VirtualAlloc2/MapViewOfFile3). Two
// mappings of one allocation would not share bytes here, as they do on POSIX.
#include <windows.h>

#include "driver.hpp"

namespace pinbench::driver_double {

void* map_memory(std::uint64_t bytes) {
    return ::VirtualAlloc(nullptr, bytes == 0 ? 1 : bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
}

void unmap_memory(void* p, std::uint64_t /*bytes*/) { ::VirtualFree(p, 0, MEM_RELEASE); }

struct PhysicalMemory {
    std::uint64_t bytes = 0;
};

PhysicalMemory* create_physical(std::uint64_t bytes) { return new PhysicalMemory{bytes}; }

void release_physical(PhysicalMemory* memory) { delete memory; }

void* reserve_addresses(std::uint64_t bytes) {
    return ::VirtualAlloc(nullptr, bytes, MEM_RESERVE, PAGE_NOACCESS);
}

bool free_addresses(void* start, std::uint64_t /*bytes*/) {
    return ::VirtualFree(start, 0, MEM_RELEASE) != 0;
}

bool map_physical(void* at, std::uint64_t bytes, std::uint64_t offset, PhysicalMemory* memory) {
    if (offset + bytes > memory->bytes) return false;
    return ::VirtualAlloc(at, bytes, MEM_COMMIT, PAGE_NOACCESS) != nullptr;
}

bool make_accessible(void* at, std::uint64_t bytes) {
    DWORD before = 0;
    return ::VirtualProtect(at, bytes, PAGE_READWRITE, &before) != 0;
}

// Back to a reservation without access.
bool unmap_physical(void* at, std::uint64_t bytes) { return ::VirtualFree(at, bytes, MEM_DECOMMIT) != 0; }

}  // namespace pinbench::driver_double
