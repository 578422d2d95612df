// The stream-ordered pool entry points, absent from the "old driver" build of the double. An
// allocation from a host-located pool costs the scripted pin cost of cuMemAllocFromPoolAsync;
// from a device pool, its size. Freed memory goes back at once (the pool keeps nothing).
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

struct Pool {
    bool host = false;
    std::uint64_t in_use = 0;
};

CUresult pool_create(CUmemoryPool* pool, const CUmemPoolProps* poolProps) {
    Driver& d = driver();
    if (!d.initialized) return CUDA_ERROR_NOT_INITIALIZED;
    if (pool == nullptr || poolProps == nullptr || poolProps->allocType != CU_MEM_ALLOCATION_TYPE_PINNED) {
        return CUDA_ERROR_INVALID_VALUE;
    }
    if (const CUresult r = d.scripted("cuMemPoolCreate"); r != CUDA_SUCCESS) return r;
    const CUmemLocationType where = poolProps->location.type;
    const bool host = where == CU_MEM_LOCATION_TYPE_HOST || where == CU_MEM_LOCATION_TYPE_HOST_NUMA;
    *pool = reinterpret_cast<CUmemoryPool>(new Pool{host, 0});
    return CUDA_SUCCESS;
}

CUresult pool_destroy(CUmemoryPool pool) {
    if (pool == nullptr) return CUDA_ERROR_INVALID_VALUE;
    delete reinterpret_cast<Pool*>(pool);
    return CUDA_SUCCESS;
}

CUresult alloc_from_pool(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream) {
    (void)hStream;
    Driver& d = driver();
    if (!d.initialized) return CUDA_ERROR_NOT_INITIALIZED;
    const auto device = d.current_device();
    if (!device) return CUDA_ERROR_INVALID_CONTEXT;
    if (dptr == nullptr || pool == nullptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult r = d.scripted("cuMemAllocFromPoolAsync", bytesize); r != CUDA_SUCCESS) return r;
    auto* owner = reinterpret_cast<Pool*>(pool);
    const std::uint64_t cost =
        owner->host ? d.script.pin_cost("cuMemAllocFromPoolAsync", 0).of(bytesize) : bytesize;
    if (!d.charge(*device, cost)) return CUDA_ERROR_OUT_OF_MEMORY;
    void* p = pinbench::driver_double::map_memory(bytesize);
    if (p == nullptr) {
        d.state.release(*device, cost);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    d.add_range(reinterpret_cast<std::uintptr_t>(p), Range{bytesize, *device, cost, RangeKind::pool, owner});
    owner->in_use += bytesize;
    *dptr = pinbench::driver_double::device_address(p);
    return CUDA_SUCCESS;
}

CUresult free_async(CUdeviceptr dptr, CUstream hStream) {
    (void)hStream;
    const auto range = driver().remove_range(static_cast<std::uintptr_t>(dptr), RangeKind::pool);
    if (!range) return CUDA_ERROR_INVALID_VALUE;
    static_cast<Pool*>(range->owner)->in_use -= range->bytes;
    pinbench::driver_double::unmap_memory(pinbench::driver_double::host_pointer(dptr), range->bytes);
    return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

CUresult CUDAAPI cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* poolProps) {
    const cuMemPoolCreate_params params{pool, poolProps};
    return traced(CUPTI_DRIVER_TRACE_CBID_cuMemPoolCreate, "cuMemPoolCreate", &params,
                  [&] { return pool_create(pool, poolProps); });
}

CUresult CUDAAPI cuMemPoolDestroy(CUmemoryPool pool) {
    const cuMemPoolDestroy_params params{pool};
    return traced(CUPTI_DRIVER_TRACE_CBID_cuMemPoolDestroy, "cuMemPoolDestroy", &params,
                  [&] { return pool_destroy(pool); });
}

CUresult CUDAAPI cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc* map, size_t count) {
    return pool == nullptr || map == nullptr || count == 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void* value) {
    if (pool == nullptr || value == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (attr != CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT && attr != CU_MEMPOOL_ATTR_USED_MEM_CURRENT) {
        return CUDA_ERROR_NOT_SUPPORTED;
    }
    *static_cast<cuuint64_t*>(value) = reinterpret_cast<Pool*>(pool)->in_use;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAllocFromPoolAsync(CUdeviceptr* dptr, size_t bytesize, CUmemoryPool pool,
                                         CUstream hStream) {
    const cuMemAllocFromPoolAsync_params params{dptr, bytesize, pool, hStream};
    return traced(CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", &params,
                  [&] { return alloc_from_pool(dptr, bytesize, pool, hStream); });
}

CUresult CUDAAPI cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
    const cuMemFreeAsync_params params{dptr, hStream};
    return traced(CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync, "cuMemFreeAsync", &params,
                  [&] { return free_async(dptr, hStream); });
}

}  // extern "C"
