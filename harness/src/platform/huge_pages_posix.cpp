// Huge pages on Linux: hugetlb (MAP_HUGETLB, 2 MiB and 1 GiB pools) and transparent huge pages
// (aligned mmap + madvise(MADV_HUGEPAGE)); what backs a range, from /proc/self/smaps.
#include "platform/huge_pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <utility>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "platform/fd_posix.hpp"

namespace pinbench::platform {
namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

// The file's text, or nothing where it does not exist or cannot be read (a kernel without
// that sysfs file says the feature is absent).
std::optional<std::string> read_text(const std::string& path) {
    try {
        return read_file(path);
    } catch (const SystemError&) {
        return std::nullopt;
    }
}

std::optional<std::uint64_t> read_number(const std::string& path) {
    const auto text = read_text(path);
    if (!text) return std::nullopt;
    try {
        std::size_t used = 0;
        const unsigned long long value = std::stoull(*text, &used);
        return static_cast<std::uint64_t>(value);
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::size_t round_up(std::size_t bytes, std::size_t unit) {
    const std::size_t b = bytes == 0 ? 1 : bytes;
    return (b + unit - 1) / unit * unit;
}

// The hugetlb pool of one page size: sysfs per size; /proc/meminfo for the default size when
// sysfs lacks the directory (e.g. a container that masks /sys).
HugeTlbPool hugetlb_pool(std::uint64_t page_bytes) {
    const std::string dir = "/sys/kernel/mm/hugepages/hugepages-" + std::to_string(page_bytes / 1024) + "kB";
    HugeTlbPool pool;
    pool.page_bytes = page_bytes;
    pool.total_source = dir + "/nr_hugepages";
    pool.free_source = dir + "/free_hugepages";
    pool.total = read_number(pool.total_source);
    pool.free = read_number(pool.free_source);
    if (pool.total && pool.free) {
        pool.overcommit = read_number(dir + "/nr_overcommit_hugepages").value_or(0);
        pool.surplus = read_number(dir + "/surplus_hugepages").value_or(0);
        return pool;
    }
    if (const auto meminfo = read_text("/proc/meminfo")) {
        if (auto fallback = parse_meminfo_huge_pages(*meminfo);
            fallback && fallback->page_bytes == page_bytes) {
            return *fallback;
        }
    }
    return pool;  // unreadable: hugetlb_unsupported_reason names the file
}

std::size_t base_page_size() {
    const long page = ::sysconf(_SC_PAGESIZE);
    return page > 0 ? static_cast<std::size_t>(page) : 4096;
}

// One mmap'd range; munmap on destruction.
struct Mapping {
    void* address = MAP_FAILED;
    std::size_t bytes = 0;
    Mapping() = default;
    Mapping(void* a, std::size_t b) : address(a), bytes(b) {}
    Mapping(Mapping&& o) noexcept
        : address(std::exchange(o.address, MAP_FAILED)), bytes(std::exchange(o.bytes, 0)) {}
    Mapping& operator=(Mapping&& o) noexcept {
        std::swap(address, o.address);
        std::swap(bytes, o.bytes);
        return *this;
    }
    ~Mapping() {
        if (address != MAP_FAILED) ::munmap(address, bytes);
    }
};

#ifdef __linux__
#ifndef MAP_HUGE_SHIFT
#define MAP_HUGE_SHIFT 26
#endif

Mapping map_hugetlb(std::uint64_t page_bytes, std::size_t bytes) {
    if (auto why = hugetlb_unsupported_reason(hugetlb_pool(page_bytes), bytes)) throw UnsupportedError(*why);
    const int log2_page = page_bytes == kGiB ? 30 : 21;
    const std::size_t length = round_up(bytes, page_bytes);
    void* p = ::mmap(nullptr, length, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | (log2_page << MAP_HUGE_SHIFT), -1, 0);
    if (p == MAP_FAILED) {
        const int error = errno;
        const std::string what = "mmap(MAP_HUGETLB, " + page_size_label(page_bytes) + " pages, " +
                                 std::to_string(length) + " bytes) failed: " + posix::errno_text(error);
        // The pool looked big enough, but reservations by others or a lost race can still say no.
        if (error == ENOMEM || error == EINVAL) throw UnsupportedError(what);
        throw SystemError(what);
    }
    return {p, length};
}

Mapping map_thp(std::size_t bytes) {
    const std::string enabled_path = "/sys/kernel/mm/transparent_hugepage/enabled";
    if (auto why = thp_unsupported_reason(read_text(enabled_path), enabled_path)) {
        throw UnsupportedError(*why);
    }
    // The PMD size: 2 MiB on x86-64, larger on some arm64 kernels.
    const std::uint64_t huge =
        read_number("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size").value_or(2 * kMiB);
    const std::size_t length = round_up(bytes, huge);
    // Over-map by one huge page, then trim both ends so the range starts on a huge page.
    const std::size_t over = length + huge;
    void* raw = ::mmap(nullptr, over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
        throw SystemError("mmap(" + std::to_string(over) + " bytes) failed: " + posix::errno_text(errno));
    }
    const std::size_t head = (huge - reinterpret_cast<std::uintptr_t>(raw) % huge) % huge;
    std::byte* const aligned = static_cast<std::byte*>(raw) + head;
    if (head != 0) ::munmap(raw, head);
    if (const std::size_t tail = over - head - length; tail != 0) ::munmap(aligned + length, tail);
    Mapping mapping{aligned, length};
    if (::madvise(mapping.address, length, MADV_HUGEPAGE) != 0) {
        const int error = errno;
        const std::string what = "madvise(MADV_HUGEPAGE) failed: " + posix::errno_text(error);
        if (error == EINVAL) throw UnsupportedError(what + " (kernel without THP)");
        throw SystemError(what);
    }
    return mapping;
}
#endif

Mapping map_pages(PageKind kind, std::size_t bytes) {
    switch (kind) {
        case PageKind::standard:
            throw std::invalid_argument("PageMemory: standard pages come from AlignedMemory");
        case PageKind::large_pages:
            throw UnsupportedError(
                "large_pages is the Windows page kind (VirtualAlloc MEM_LARGE_PAGES); "
                "on Linux use hugetlb, hugetlb_1g or thp");
#ifdef __linux__
        case PageKind::hugetlb:
            return map_hugetlb(2 * kMiB, bytes);
        case PageKind::hugetlb_1g:
            return map_hugetlb(kGiB, bytes);
        case PageKind::thp:
            return map_thp(bytes);
#else
        case PageKind::hugetlb:
        case PageKind::hugetlb_1g:
        case PageKind::thp:
            throw UnsupportedError(std::string(to_string(kind)) + " pages exist only on Linux");
#endif
    }
    throw std::invalid_argument("unknown page kind");
}

}  // namespace

struct PageMemory::Impl {
    Mapping mapping;
    double touch_ms = 0;
};

PageMemory::PageMemory(PageKind kind, std::size_t bytes) : impl_(std::make_unique<Impl>()) {
    impl_->mapping = map_pages(kind, bytes);
    // One write per base page: hugetlb pages are reserved but faulted in lazily, and THP
    // faults decide here whether a huge page is used.
    auto* p = static_cast<std::byte*>(impl_->mapping.address);
    const auto start = std::chrono::steady_clock::now();
    const std::size_t step = base_page_size();
    for (std::size_t off = 0; off < impl_->mapping.bytes; off += step) p[off] = std::byte{1};
    impl_->touch_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

PageMemory::~PageMemory() = default;
PageMemory::PageMemory(PageMemory&&) noexcept = default;
PageMemory& PageMemory::operator=(PageMemory&&) noexcept = default;

std::byte* PageMemory::data() const { return static_cast<std::byte*>(impl_->mapping.address); }
std::size_t PageMemory::mapped_bytes() const { return impl_->mapping.bytes; }
double PageMemory::touch_ms() const { return impl_->touch_ms; }

nlohmann::json verified_backing(const void* p, std::size_t bytes, PageKind requested) {
    try {
        const auto smaps = read_text("/proc/self/smaps");
        if (!smaps) {
            return {{"requested", std::string(to_string(requested))},
                    {"verified", false},
                    {"why", "/proc/self/smaps not readable"}};
        }
        const auto begin = reinterpret_cast<std::uintptr_t>(p);
        return smaps_backing_record(requested,
                                    parse_smaps(*smaps, begin, begin + std::max<std::size_t>(bytes, 1)));
    } catch (const std::exception& e) {
        return {{"requested", std::string(to_string(requested))}, {"verified", false}, {"why", e.what()}};
    }
}

}  // namespace pinbench::platform
