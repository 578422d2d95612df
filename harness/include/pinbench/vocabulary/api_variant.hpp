// The ways a host buffer can be obtained. Pageable memory is the control.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench {

enum class ApiFamily {
    pageable,       // malloc + touch every page: the control
    malloc_host,    // cudaMallocHost
    host_alloc,     // cudaHostAlloc(flags)
    host_register,  // page-aligned memory (of the requested page kind), touched, then cudaHostRegister(flags)
    vmm_host,       // cuMemCreate at a host location + cuMemAddressReserve/cuMemMap/cuMemSetAccess
    pool_host,      // cudaMemPoolCreate at a host location + cudaMallocFromPoolAsync
};

// Flags as bits, independent of the CUDA headers' values (the core maps them).
enum ApiFlag : unsigned {
    flag_none = 0,
    flag_portable = 1u << 0,
    flag_mapped = 1u << 1,
    flag_write_combined = 1u << 2,  // cudaHostAlloc only
};

// The pages the OS backs a cudaHostRegister buffer with. Only cudaHostRegister takes a page
// kind; where the OS cannot provide it the run is WAIVED (UnsupportedError), never replaced.
enum class PageKind {
    standard,     // the OS's base pages (what malloc gives)
    hugetlb,      // Linux: mmap(MAP_HUGETLB | MAP_HUGE_2MB) from the 2 MiB hugetlb pool
    hugetlb_1g,   // Linux: mmap(MAP_HUGETLB | MAP_HUGE_1GB) from the 1 GiB hugetlb pool
    thp,          // Linux: transparent huge pages, aligned mmap + madvise(MADV_HUGEPAGE)
    large_pages,  // Windows: VirtualAlloc(MEM_LARGE_PAGES), needs SeLockMemoryPrivilege
};

// Where cuMemCreate / cudaMemPoolCreate place the memory. Required by those two families,
// not accepted by the others.
enum class HostLocation {
    none,       // not a location-based family
    host,       // CU_MEM_LOCATION_TYPE_HOST / cudaMemLocationTypeHost (drivers of CUDA 13.0 on)
    host_numa,  // CU_MEM_LOCATION_TYPE_HOST_NUMA, id = the device's closest host NUMA node (12.2 on)
};

struct ApiVariant {
    ApiFamily family = ApiFamily::pageable;
    unsigned flags = flag_none;
    PageKind pages = PageKind::standard;
    HostLocation location = HostLocation::none;

    friend bool operator==(const ApiVariant&, const ApiVariant&) = default;
};

// Canonical spelling, used in scenario files, ids and results: "family[:item+item...]".
//   pageable, cudaMallocHost, cudaHostAlloc, cudaHostAlloc:portable,
//   cudaHostAlloc:portable+mapped+write_combined, cudaHostRegister:mapped,
//   cudaHostRegister:hugetlb, cudaHostRegister:portable+thp,
//   cuMemCreate:host, cuMemCreate:host_numa, cudaMallocFromPoolAsync:host ...
// Items are written in the fixed order portable, mapped, write_combined, then the page kind
// (hugetlb, hugetlb_1g, thp, large_pages; "standard" is never written), then the location.
std::string to_string(ApiVariant api);

// Parses the canonical spelling (items in any order, each at most once, at most one page kind,
// exactly one location for cuMemCreate / cudaMallocFromPoolAsync). On failure returns nullopt
// and sets *why to a one-line reason (unknown api, unknown item, item not valid for this api,
// duplicate item, two page kinds, missing location).
std::optional<ApiVariant> parse_api_variant(std::string_view text, std::string* why);

// Every variant the harness implements, in a stable order (used by `pinbench doctor`,
// GPU tests, benchmarks and documentation): the classic ones first, then those that may be
// WAIVED on a given machine (may_be_unsupported).
std::vector<ApiVariant> all_api_variants();

// True for variants whose support depends on the OS configuration or the driver (huge pages,
// host-located VMM and pools): allocating them may throw UnsupportedError.
bool may_be_unsupported(ApiVariant api);

// The words of the enums as written in spellings and backing records ("hugetlb", "host_numa").
std::string_view to_string(PageKind pages);
std::string_view to_string(HostLocation location);

// True when the variant yields memory the GPU can DMA from without staging.
inline bool is_pinned(ApiVariant api) { return api.family != ApiFamily::pageable; }

// True when the buffer has a device pointer (mapped zero-copy, cudaMallocHost, and the
// host-located VMM and pool allocations, which are mapped for the device by construction).
bool has_device_pointer(ApiVariant api);

}  // namespace pinbench
