// Large pages on Windows: VirtualAlloc(MEM_LARGE_PAGES) where SeLockMemoryPrivilege is held;
// what backs a range, from QueryWorkingSetEx (the LargePage bit of sampled pages).
#include <windows.h>
// after windows.h
#include <psapi.h>

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <utility>
#include <vector>

#include "pinbench/vocabulary/errors.hpp"
#include "platform/handles_win32.hpp"
#include "platform/huge_pages.hpp"

namespace pinbench::platform {
namespace {

std::size_t base_page_size() {
    SYSTEM_INFO info{};
    ::GetSystemInfo(&info);
    return info.dwPageSize != 0 ? info.dwPageSize : 4096;
}

// Enables SeLockMemoryPrivilege in this process's token. Enabling succeeds only where the
// account holds the privilege ("Lock pages in memory"); otherwise UnsupportedError.
void enable_lock_memory_privilege() {
    HANDLE raw = nullptr;
    if (!::OpenProcessToken(::GetCurrentProcess(), TOKEN_ADJUST_PRIVILEGES | TOKEN_QUERY, &raw)) {
        throw SystemError("OpenProcessToken failed: " + win32::error_text(::GetLastError()));
    }
    const win32::UniqueHandle token(raw);
    TOKEN_PRIVILEGES privileges{};
    privileges.PrivilegeCount = 1;
    privileges.Privileges[0].Attributes = SE_PRIVILEGE_ENABLED;
    if (!::LookupPrivilegeValueW(nullptr, L"SeLockMemoryPrivilege", &privileges.Privileges[0].Luid)) {
        throw SystemError("LookupPrivilegeValue(SeLockMemoryPrivilege) failed: " +
                          win32::error_text(::GetLastError()));
    }
    const BOOL adjusted = ::AdjustTokenPrivileges(token.get(), FALSE, &privileges, 0, nullptr, nullptr);
    const DWORD error = ::GetLastError();  // ERROR_NOT_ALL_ASSIGNED even when the call "succeeds"
    if (!adjusted || error == ERROR_NOT_ALL_ASSIGNED) {
        throw UnsupportedError(
            "SeLockMemoryPrivilege not held (grant \"Lock pages in memory\" to this account "
            "and log on again)");
    }
}

// One VirtualAlloc'd range; VirtualFree(MEM_RELEASE) on destruction.
struct Allocation {
    void* address = nullptr;
    std::size_t bytes = 0;
    Allocation() = default;
    Allocation(void* a, std::size_t b) : address(a), bytes(b) {}
    Allocation(Allocation&& o) noexcept
        : address(std::exchange(o.address, nullptr)), bytes(std::exchange(o.bytes, 0)) {}
    Allocation& operator=(Allocation&& o) noexcept {
        std::swap(address, o.address);
        std::swap(bytes, o.bytes);
        return *this;
    }
    ~Allocation() {
        if (address != nullptr) ::VirtualFree(address, 0, MEM_RELEASE);
    }
};

Allocation allocate_large_pages(std::size_t bytes) {
    const SIZE_T large = ::GetLargePageMinimum();
    if (large == 0) throw UnsupportedError("large pages not supported here: GetLargePageMinimum() is 0");
    enable_lock_memory_privilege();
    const std::size_t b = bytes == 0 ? 1 : bytes;
    const std::size_t length = (b + large - 1) / large * large;
    void* p = ::VirtualAlloc(nullptr, length, MEM_RESERVE | MEM_COMMIT | MEM_LARGE_PAGES, PAGE_READWRITE);
    if (p == nullptr) {
        const DWORD error = ::GetLastError();
        const std::string what = "VirtualAlloc(MEM_LARGE_PAGES, " + std::to_string(length) +
                                 " bytes) failed: " + win32::error_text(error);
        // Large pages need physically contiguous memory; a fragmented machine says no.
        if (error == ERROR_NO_SYSTEM_RESOURCES || error == ERROR_NOT_ENOUGH_MEMORY ||
            error == ERROR_PRIVILEGE_NOT_HELD) {
            throw UnsupportedError(what);
        }
        throw SystemError(what);
    }
    return {p, length};
}

Allocation allocate(PageKind kind, std::size_t bytes) {
    switch (kind) {
        case PageKind::standard:
            throw std::invalid_argument("PageMemory: standard pages come from AlignedMemory");
        case PageKind::large_pages:
            return allocate_large_pages(bytes);
        case PageKind::hugetlb:
        case PageKind::hugetlb_1g:
        case PageKind::thp:
            throw UnsupportedError(std::string(to_string(kind)) +
                                   " is a Linux page kind; on Windows use large_pages");
    }
    throw std::invalid_argument("unknown page kind");
}

}  // namespace

struct PageMemory::Impl {
    Allocation allocation;
    double touch_ms = 0;
};

PageMemory::PageMemory(PageKind kind, std::size_t bytes) : impl_(std::make_unique<Impl>()) {
    impl_->allocation = allocate(kind, bytes);
    // Large pages are committed and resident at allocation; touching costs little but keeps
    // the contract (every page touched) the same on every OS.
    auto* p = static_cast<std::byte*>(impl_->allocation.address);
    const auto start = std::chrono::steady_clock::now();
    const std::size_t step = base_page_size();
    for (std::size_t off = 0; off < impl_->allocation.bytes; off += step) p[off] = std::byte{1};
    impl_->touch_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

PageMemory::~PageMemory() = default;
PageMemory::PageMemory(PageMemory&&) noexcept = default;
PageMemory& PageMemory::operator=(PageMemory&&) noexcept = default;

std::byte* PageMemory::data() const { return static_cast<std::byte*>(impl_->allocation.address); }
std::size_t PageMemory::mapped_bytes() const { return impl_->allocation.bytes; }
double PageMemory::touch_ms() const { return impl_->touch_ms; }

nlohmann::json verified_backing(const void* p, std::size_t bytes, PageKind requested) {
    nlohmann::json record{{"requested", std::string(to_string(requested))}, {"method", "QueryWorkingSetEx"}};
    try {
        // Up to 64 pages spread evenly over the range, first and last included.
        const std::size_t page = base_page_size();
        const std::size_t pages = std::max<std::size_t>((bytes + page - 1) / page, 1);
        const std::size_t samples = std::min<std::size_t>(pages, 64);
        std::vector<PSAPI_WORKING_SET_EX_INFORMATION> info(samples);
        for (std::size_t i = 0; i < samples; ++i) {
            const std::size_t index = samples == 1 ? 0 : i * (pages - 1) / (samples - 1);
            info[i].VirtualAddress = const_cast<std::byte*>(static_cast<const std::byte*>(p) + index * page);
        }
        const DWORD size = static_cast<DWORD>(info.size() * sizeof(info[0]));
        if (!::QueryWorkingSetEx(::GetCurrentProcess(), info.data(), size)) {
            record["verified"] = false;
            record["why"] = "QueryWorkingSetEx failed: " + win32::error_text(::GetLastError());
            return record;
        }
        std::size_t valid = 0, large = 0;
        for (const auto& entry : info) {
            if (entry.VirtualAttributes.Valid) {
                ++valid;
                if (entry.VirtualAttributes.LargePage) ++large;
            }
        }
        const char* kind = valid == 0      ? "not_resident"
                           : large == 0    ? "base"
                           : large < valid ? "mixed"
                                           : "huge";
        record["verified"] = true;
        record["sampled_pages"] = samples;
        record["valid_pages"] = valid;
        record["large_pages"] = large;
        record["pages"] = kind;
        if (requested != PageKind::standard) record["as_requested"] = std::string_view(kind) == "huge";
        return record;
    } catch (const std::exception& e) {
        record["verified"] = false;
        record["why"] = e.what();
        return record;
    }
}

}  // namespace pinbench::platform
