// Page-aligned memory straight from the OS (mmap / VirtualAlloc) and never touched, for the
// rows that time the first touch of memory and the registration of untouched memory. (The
// C heap may hand back pages it already touched.) One header; os_memory_posix.cpp and
// os_memory_win32.cpp implement it.
#pragma once

#include <cstddef>
#include <string>

namespace pinbench::bench {

class OsPages {
public:
    explicit OsPages(std::size_t bytes);  // reserves and commits, touches nothing; throws SystemError
    ~OsPages();
    OsPages(const OsPages&) = delete;
    OsPages& operator=(const OsPages&) = delete;
    std::byte* data() const { return data_; }
    std::size_t size() const { return size_; }

private:
    std::byte* data_ = nullptr;
    std::size_t size_ = 0;
};

std::size_t os_page_size();

// Writes one byte in every page (and the last byte), so the OS backs every page.
inline void touch_pages(std::byte* p, std::size_t bytes, std::size_t page) {
    volatile std::byte* v = p;  // the writes are the point: keep them
    for (std::size_t off = 0; off < bytes; off += page) v[off] = std::byte{1};
    if (bytes > 0) v[bytes - 1] = std::byte{1};
}

// How the OS backs fresh pages, for the context (Linux: the transparent huge page mode,
// which makes first touch fault 2 MiB at a time); "not applicable" elsewhere.
std::string page_backing_notes();

}  // namespace pinbench::bench
