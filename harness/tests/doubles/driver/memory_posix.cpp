// Anonymous memory on POSIX: reserved lazily, so a scripted device of some GiB costs only what
// is touched.
#include <sys/mman.h>

#include "driver.hpp"

namespace pinbench::driver_double {

void* map_memory(std::uint64_t bytes) {
    void* p = ::mmap(nullptr, bytes == 0 ? 1 : bytes, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    return p == MAP_FAILED ? nullptr : p;
}

void unmap_memory(void* p, std::uint64_t bytes) { ::munmap(p, bytes == 0 ? 1 : bytes); }

}  // namespace pinbench::driver_double
