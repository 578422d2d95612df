// The virtual memory management entry points (cuMemCreate and its kin), absent from the
// "old driver" build of the double. Physical memory and the address ranges it is mapped into are
// the platform's (memory_<platform>.cpp); host and device see the same bytes at a mapped address.
// A host-located allocation costs the scripted pin cost of cuMemCreate; a device-located one its
// size.
#include <cuda.h>

#include "api_callbacks.hpp"
#include "cupti_params.hpp"
#include "driver.hpp"

using pinbench::driver_double::driver;
using pinbench::driver_double::Driver;
using pinbench::driver_double::Range;
using pinbench::driver_double::RangeKind;
using pinbench::driver_double::traced;

namespace {

struct Physical {
    pinbench::driver_double::PhysicalMemory* memory = nullptr;
    std::uint64_t bytes = 0;
    int device = 0;
    std::uint64_t charged = 0;
};

// A handle is the integer form of its Physical's address (CUmemGenericAllocationHandle is an
// integer type).
Physical* physical_of(CUmemGenericAllocationHandle handle) {
    return reinterpret_cast<Physical*>(handle);  // NOLINT(performance-no-int-to-ptr)
}

bool host_located(const CUmemLocation& location) {
    return location.type == CU_MEM_LOCATION_TYPE_HOST || location.type == CU_MEM_LOCATION_TYPE_HOST_NUMA;
}

CUresult create(CUmemGenericAllocationHandle* handle, size_t size, const CUmemAllocationProp* prop,
                unsigned long long flags) {
    Driver& d = driver();
    if (!d.initialized) return CUDA_ERROR_NOT_INITIALIZED;
    const auto device = d.current_device();
    if (!device) return CUDA_ERROR_INVALID_CONTEXT;
    if (handle == nullptr || prop == nullptr || flags != 0 || size == 0 ||
        size % d.script.vmm_granularity != 0 || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (const CUresult r = d.scripted("cuMemCreate", size); r != CUDA_SUCCESS) return r;
    const std::uint64_t cost =
        host_located(prop->location) ? d.script.pin_cost("cuMemCreate", 0).of(size) : size;
    if (!d.charge(*device, cost)) return CUDA_ERROR_OUT_OF_MEMORY;
    auto* memory = pinbench::driver_double::create_physical(size);
    if (memory == nullptr) {
        d.state.release(*device, cost);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *handle = reinterpret_cast<CUmemGenericAllocationHandle>(new Physical{memory, size, *device, cost});
    return CUDA_SUCCESS;
}

CUresult release(CUmemGenericAllocationHandle handle) {
    if (handle == 0) return CUDA_ERROR_INVALID_VALUE;
    auto* physical = physical_of(handle);
    pinbench::driver_double::release_physical(physical->memory);
    driver().state.release(physical->device, physical->charged);
    delete physical;
    return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

CUresult CUDAAPI cuMemGetAllocationGranularity(size_t* granularity, const CUmemAllocationProp* prop,
                                               CUmemAllocationGranularity_flags option) {
    (void)option;
    if (!driver().initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (granularity == nullptr || prop == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *granularity = driver().script.vmm_granularity;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemCreate(CUmemGenericAllocationHandle* handle, size_t size,
                             const CUmemAllocationProp* prop, unsigned long long flags) {
    const cuMemCreate_params params{handle, size, prop, flags};
    return traced(CUPTI_DRIVER_TRACE_CBID_cuMemCreate, "cuMemCreate", &params,
                  [&] { return create(handle, size, prop, flags); });
}

CUresult CUDAAPI cuMemRelease(CUmemGenericAllocationHandle handle) {
    const cuMemRelease_params params{handle};
    return traced(CUPTI_DRIVER_TRACE_CBID_cuMemRelease, "cuMemRelease", &params,
                  [&] { return release(handle); });
}

CUresult CUDAAPI cuMemAddressReserve(CUdeviceptr* ptr, size_t size, size_t alignment, CUdeviceptr addr,
                                     unsigned long long flags) {
    (void)alignment;  // reservations are aligned to any granularity the script gives in pages
    (void)addr;
    if (!driver().initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (ptr == nullptr || size == 0 || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    void* p = pinbench::driver_double::reserve_addresses(size);
    if (p == nullptr) return CUDA_ERROR_OUT_OF_MEMORY;
    *ptr = pinbench::driver_double::device_address(p);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAddressFree(CUdeviceptr ptr, size_t size) {
    return pinbench::driver_double::free_addresses(pinbench::driver_double::host_pointer(ptr), size)
               ? CUDA_SUCCESS
               : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                          unsigned long long flags) {
    if (handle == 0 || flags != 0) return CUDA_ERROR_INVALID_VALUE;
    const auto* physical = physical_of(handle);
    if (offset + size > physical->bytes) return CUDA_ERROR_INVALID_VALUE;
    if (!pinbench::driver_double::map_physical(pinbench::driver_double::host_pointer(ptr), size, offset,
                                               physical->memory)) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    driver().add_range(static_cast<std::uintptr_t>(ptr),
                       Range{size, physical->device, 0, RangeKind::vmm_mapping});
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc* desc, size_t count) {
    if (desc == nullptr || count == 0) return CUDA_ERROR_INVALID_VALUE;
    return pinbench::driver_double::make_accessible(pinbench::driver_double::host_pointer(ptr), size)
               ? CUDA_SUCCESS
               : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuMemUnmap(CUdeviceptr ptr, size_t size) {
    if (!driver().remove_range(static_cast<std::uintptr_t>(ptr), RangeKind::vmm_mapping)) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    return pinbench::driver_double::unmap_physical(pinbench::driver_double::host_pointer(ptr), size)
               ? CUDA_SUCCESS
               : CUDA_ERROR_INVALID_VALUE;
}

}  // extern "C"
