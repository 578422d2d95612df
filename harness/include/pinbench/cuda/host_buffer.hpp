// CUDA core, host side: one allocator per API variant behind one interface.
// The implementation (harness/src/cuda/) is the only code that includes CUDA headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

#include "pinbench/vocabulary/api_variant.hpp"

namespace pinbench {

class HostBuffer {
public:
    virtual ~HostBuffer() =
        default;  // frees through the matching API (cudaFreeHost, cudaHostUnregister + free, free)
    HostBuffer(const HostBuffer&) = delete;
    HostBuffer& operator=(const HostBuffer&) = delete;

    virtual ApiVariant api() const = 0;
    virtual std::byte* data() const = 0;
    virtual std::size_t size() const = 0;
    // Device pointer of mapped (zero-copy) memory on the current device; nullptr otherwise.
    virtual void* device_pointer() const = 0;
    // Milliseconds spent touching fresh pages before the driver saw them (pageable and register
    // variants; 0 where the driver allocates). On a VM first touch can dominate allocation time.
    virtual double first_touch_ms() const { return 0; }
    // What really backs the buffer now, read back from the OS (Linux /proc/self/smaps, Windows
    // QueryWorkingSetEx), so that a huge-page request that got base pages says so. The record
    // (docs/scenario-format.md, "Page kinds and host locations"): {"requested": "thp",
    // "verified": true, "kernel_page_sizes": [4096], "anon_huge_bytes": N, "hugetlb_bytes": M,
    // "rss_bytes": R, "pages": "base", "as_requested": false, ...}; VMM and pool buffers add
    // "location". Default: {"page_size": host_page_size(), "verified": false}.
    virtual nlohmann::json backing() const;

protected:
    HostBuffer() = default;
};

// Allocates `bytes` through `api`. Pageable and register variants touch every page first
// (page-aligned, so registration covers whole pages; huge page kinds are aligned to their page
// size). Throws CudaError (e.g. cudaErrorMemoryAllocation), std::bad_alloc, or UnsupportedError
// where the OS or driver cannot provide the variant (may_be_unsupported: no huge pages
// configured, THP disabled, privilege not held, host-located VMM or pools not supported) with
// the reason; such a variant is never silently replaced by another. Requires a current device
// for mapped, VMM and pool variants.
std::unique_ptr<HostBuffer> allocate_host_buffer(ApiVariant api, std::size_t bytes);

// Empty when the driver knows the buffer's memory as page-locked host memory (its first, middle
// and last byte: cuPointerGetAttribute MEMORY_TYPE HOST; cuMemHostGetFlags too for the
// cuMemHostAlloc families), else what the driver answered: a pinning call that reported success
// and left the memory pageable (a silent fallback) says so here. Throws UnsupportedError where
// the driver lacks the entry points (src/cuda/pin_check.cpp).
std::string not_pinned_reason(const HostBuffer& buffer);

// The page size used for alignment and touching (sysconf / GetSystemInfo).
std::size_t host_page_size();

}  // namespace pinbench
