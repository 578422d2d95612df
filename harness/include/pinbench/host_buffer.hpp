// CUDA core, host side: one allocator per API variant behind one interface.
// The implementation (harness/src/cuda/) is the only code that includes CUDA headers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "pinbench/api_variant.hpp"

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

protected:
    HostBuffer() = default;
};

// Allocates `bytes` through `api`. Pageable and register variants touch every page first
// (page-aligned, so registration covers whole pages). Throws CudaError (e.g.
// cudaErrorMemoryAllocation) or std::bad_alloc. Requires a current device for mapped variants.
std::unique_ptr<HostBuffer> allocate_host_buffer(ApiVariant api, std::size_t bytes);

// The page size used for alignment and touching (sysconf / GetSystemInfo).
std::size_t host_page_size();

}  // namespace pinbench
