#include "os_memory.hpp"

#include <windows.h>

#include <string>

#include "pinbench/vocabulary/errors.hpp"

namespace pinbench::bench {

OsPages::OsPages(std::size_t bytes) : size_(bytes) {
    void* p = VirtualAlloc(nullptr, bytes == 0 ? 1 : bytes, MEM_RESERVE | MEM_COMMIT, PAGE_READWRITE);
    if (p == nullptr) throw SystemError("VirtualAlloc failed: error " + std::to_string(GetLastError()));
    data_ = static_cast<std::byte*>(p);
}

OsPages::~OsPages() { VirtualFree(data_, 0, MEM_RELEASE); }

std::size_t os_page_size() {
    SYSTEM_INFO info;
    GetSystemInfo(&info);
    return info.dwPageSize;
}

std::string page_backing_notes() {
    return "not applicable (Windows); page size " + std::to_string(os_page_size());
}

}  // namespace pinbench::bench
