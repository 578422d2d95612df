// Huge and large pages, host only (no CUDA). Three parts:
//  - pure decisions over the kernel's text files (/proc/meminfo, the THP sysfs files,
//    /proc/self/smaps), in huge_pages.cpp, unit-tested with text fixtures on any OS;
//  - PageMemory: memory of a requested page kind (huge_pages_posix.cpp / huge_pages_win32.cpp);
//  - verified_backing: what really backs a range now (smaps on Linux, QueryWorkingSetEx on Windows).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pinbench/vocabulary/api_variant.hpp"

namespace pinbench::platform {

// --- Pure decisions ----------------------------------------------------------------------------

// One hugetlb pool (one page size) as the kernel reports it. The *_source strings name where
// a number came from, so a reason can quote it.
struct HugeTlbPool {
    std::uint64_t page_bytes = 0;
    std::optional<std::uint64_t> total;  // nr_hugepages / HugePages_Total
    std::optional<std::uint64_t> free;   // free_hugepages / HugePages_Free
    std::uint64_t overcommit = 0;        // nr_overcommit_hugepages (0 where not known)
    std::uint64_t surplus = 0;           // surplus_hugepages / HugePages_Surp
    std::string total_source;
    std::string free_source;
};

// The default-size pool from /proc/meminfo text (Hugepagesize, HugePages_Total, HugePages_Free,
// HugePages_Surp). nullopt when there is no Hugepagesize line (a kernel without hugetlbfs).
std::optional<HugeTlbPool> parse_meminfo_huge_pages(std::string_view meminfo);

// nullopt when `bytes` fits in the pool's free (or overcommittable) pages; else a one-line
// reason: "no 2 MiB huge pages configured: ...nr_hugepages is 0", "not enough free ...".
std::optional<std::string> hugetlb_unsupported_reason(const HugeTlbPool& pool, std::size_t bytes);

// The selected word of a THP sysfs file: "always [madvise] never" -> "madvise"; nullopt when
// no word is bracketed.
std::optional<std::string> bracketed_choice(std::string_view text);

// nullopt when madvise(MADV_HUGEPAGE) can give transparent huge pages under the `enabled`
// file's text (nullopt text: the file is missing); else a one-line reason naming `path`.
std::optional<std::string> thp_unsupported_reason(const std::optional<std::string>& enabled_text,
                                                  std::string_view path);

// What /proc/self/smaps says about the mappings (VMAs) that overlap [begin, end). Counts are
// whole-VMA counts: mapping_bytes says how much address space they cover.
struct SmapsBacking {
    std::size_t mappings = 0;
    std::uint64_t mapping_bytes = 0;
    std::uint64_t rss_bytes = 0;
    std::uint64_t anon_huge_bytes = 0;             // AnonHugePages (THP)
    std::uint64_t hugetlb_bytes = 0;               // Private_Hugetlb + Shared_Hugetlb
    std::uint64_t resident_bytes = 0;              // per VMA max(Rss, hugetlb): Rss omits hugetlb
    std::vector<std::uint64_t> kernel_page_sizes;  // distinct KernelPageSize values, ascending
};
SmapsBacking parse_smaps(std::string_view smaps, std::uintptr_t begin, std::uintptr_t end);

// The backing record of a buffer (HostBuffer::backing()) from smaps numbers:
//   {"requested": "thp", "verified": true, "method": "/proc/self/smaps", "mappings": 1,
//    "mapping_bytes": N, "kernel_page_sizes": [4096], "rss_bytes": R, "anon_huge_bytes": A,
//    "hugetlb_bytes": H, "resident_bytes": R', "huge_bytes": A + H,
//    "pages": "huge" | "mixed" | "base" | "not_resident", "as_requested": true|false}
// ("as_requested" only for a huge page kind.) Without an overlapping mapping: verified false
// and "why".
nlohmann::json smaps_backing_record(PageKind requested, const SmapsBacking& smaps);

// "2 MiB", "1 GiB", "64 KiB", "4096 B": page sizes in reasons.
std::string page_size_label(std::uint64_t bytes);

// --- OS side ---------------------------------------------------------------------------------

// Memory of a requested (non-standard) page kind, aligned to that page size, every page
// touched, freed with the OS call that matches (munmap, VirtualFree). Throws UnsupportedError
// where this OS or its configuration cannot provide the kind (the reason names the setting or
// the privilege), SystemError when an OS call fails otherwise, std::invalid_argument for
// PageKind::standard.
class PageMemory {
public:
    PageMemory(PageKind kind, std::size_t bytes);
    ~PageMemory();
    PageMemory(PageMemory&&) noexcept;
    PageMemory& operator=(PageMemory&&) noexcept;
    PageMemory(const PageMemory&) = delete;
    PageMemory& operator=(const PageMemory&) = delete;

    std::byte* data() const;
    std::size_t mapped_bytes() const;  // the request rounded up to whole pages of the kind
    double touch_ms() const;           // time spent touching every page after mapping

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// What backs [p, p + bytes) now: smaps_backing_record on Linux; on Windows
//   {"requested": ..., "verified": true, "method": "QueryWorkingSetEx", "sampled_pages": n,
//    "valid_pages": v, "large_pages": l, "pages": ..., "as_requested": ...}.
// Never throws: a probe that cannot run gives {"requested": ..., "verified": false, "why": ...}.
nlohmann::json verified_backing(const void* p, std::size_t bytes, PageKind requested);

}  // namespace pinbench::platform
