// Whether memory a pinning call returned is page-locked as far as the driver knows: a call that
// reported success and left the memory pageable (a silent fallback) is seen here, not later as a
// slow copy or a crash (`pinbench budget`, docs/budget.md).
#include <cuda.h>

#include <cstdint>
#include <string>

#include "cuda/driver_api.hpp"
#include "pinbench/cuda/host_buffer.hpp"

namespace pinbench {
namespace {

// What cuPointerGetAttribute(MEMORY_TYPE) says of one byte: empty when it is host memory the
// driver knows (pinned or registered), else its answer.
std::string host_memory_type_problem(const cuda::DriverApi& d, const std::byte* p) {
    unsigned int type = 0;
    const CUresult r = d.status(d.pointer_get_attribute, &type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                static_cast<CUdeviceptr>(reinterpret_cast<std::uintptr_t>(p)));
    if (r != CUDA_SUCCESS) return "cuPointerGetAttribute(MEMORY_TYPE): " + d.error_name(r);
    if (type != CU_MEMORYTYPE_HOST) {
        return "cuPointerGetAttribute(MEMORY_TYPE) = " + std::to_string(type) + ", not HOST";
    }
    return {};
}

}  // namespace

std::string not_pinned_reason(const HostBuffer& buffer) {
    const std::size_t size = buffer.size();
    if (size == 0) return {};
    const cuda::DriverApi& d = cuda::driver();
    const std::byte* start = buffer.data();
    // The first, middle and last byte: a registration that covered only part of the range fails
    // one of them.
    for (const std::size_t offset : {std::size_t{0}, size / 2, size - 1}) {
        if (std::string why = host_memory_type_problem(d, start + offset); !why.empty()) {
            return why + " at offset " + std::to_string(offset);
        }
    }
    if (buffer.api().family == ApiFamily::malloc_host || buffer.api().family == ApiFamily::host_alloc) {
        unsigned int flags = 0;
        const CUresult r = d.status(d.mem_host_get_flags, &flags, const_cast<std::byte*>(start));
        if (r != CUDA_SUCCESS) return "cuMemHostGetFlags: " + d.error_name(r);
    }
    return {};
}

}  // namespace pinbench
