#include "os_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <string>

#include "pinbench/vocabulary/errors.hpp"

namespace pinbench::bench {

OsPages::OsPages(std::size_t bytes) : size_(bytes) {
    void* p =
        mmap(nullptr, bytes == 0 ? 1 : bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw SystemError(std::string("mmap: ") + std::strerror(errno));
    data_ = static_cast<std::byte*>(p);
}

OsPages::~OsPages() { munmap(data_, size_ == 0 ? 1 : size_); }

std::size_t os_page_size() {
    const long v = sysconf(_SC_PAGESIZE);
    return v > 0 ? static_cast<std::size_t>(v) : 4096;
}

std::string page_backing_notes() {
    std::ifstream in("/sys/kernel/mm/transparent_hugepage/enabled");
    std::string line;
    if (!in || !std::getline(in, line)) return "transparent_hugepage: unknown (cannot read sysfs)";
    return "transparent_hugepage.enabled: " + line + "; page size " + std::to_string(os_page_size());
}

}  // namespace pinbench::bench
