// Memory on POSIX: anonymous mappings reserved lazily, so a scripted device of some GiB costs
// only what is touched; VMM physical memory is a memfd, mapped at the reserved address.
#include <sys/mman.h>
#include <unistd.h>

#include "driver.hpp"

namespace pinbench::driver_double {

void* map_memory(std::uint64_t bytes) {
    void* p = ::mmap(nullptr, bytes == 0 ? 1 : bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
}

void unmap_memory(void* p, std::uint64_t bytes) { ::munmap(p, bytes == 0 ? 1 : bytes); }

struct PhysicalMemory {
    int fd = -1;
};

PhysicalMemory* create_physical(std::uint64_t bytes) {
    const int fd = ::memfd_create("pinbench-double-vmm", MFD_CLOEXEC);
    if (fd < 0) return nullptr;
    if (::ftruncate(fd, static_cast<off_t>(bytes)) != 0) {
        ::close(fd);
        return nullptr;
    }
    return new PhysicalMemory{fd};
}

void release_physical(PhysicalMemory* memory) {
    ::close(memory->fd);
    delete memory;
}

void* reserve_addresses(std::uint64_t bytes) {
    void* p = ::mmap(nullptr, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
}

bool free_addresses(void* start, std::uint64_t bytes) { return ::munmap(start, bytes) == 0; }

bool map_physical(void* at, std::uint64_t bytes, std::uint64_t offset, PhysicalMemory* memory) {
    return ::mmap(at, bytes, PROT_NONE, MAP_SHARED | MAP_FIXED, memory->fd, static_cast<off_t>(offset)) !=
           MAP_FAILED;
}

bool make_accessible(void* at, std::uint64_t bytes) {
    return ::mprotect(at, bytes, PROT_READ | PROT_WRITE) == 0;
}

// Back to a reservation without access.
bool unmap_physical(void* at, std::uint64_t bytes) {
    return ::mmap(at, bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED, -1, 0) !=
           MAP_FAILED;
}

}  // namespace pinbench::driver_double
