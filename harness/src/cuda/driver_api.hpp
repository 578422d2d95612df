// The CUDA driver API, loaded at run time: the one table through which the CUDA core calls the
// driver (docs/driver-api.md). Nothing links libcuda or the CUDA runtime; cuda.h and
// cudaTypedefs.h are used for their types only, so the build needs no CUDA toolkit.
//
// The library: Linux `libcuda.so.1`, by soname (LD_LIBRARY_PATH is honoured, as the test double
// relies on); Windows `nvcuda.dll` from System32 only, never the current folder.
//
// The entry points, by the name the driver exports (cuda.h's #defines map the plain names to
// these `_v2` exports), with the cudaTypedefs.h type of each. Every one is optional at load
// time: a driver that lacks one (an older 5xx driver) makes only the call that needs it fail
// with UnsupportedError naming it, which ends that run WAIVED with the reason, as NVML does.
//
//   entry point (exported name)    PFN type (cudaTypedefs.h)
#define PINBENCH_DRIVER_ENTRY_POINTS(X)                                                                 \
    /* initialisation, errors, versions */                                                              \
    X(init, "cuInit", PFN_cuInit_v2000)                                                                 \
    X(driver_get_version, "cuDriverGetVersion", PFN_cuDriverGetVersion_v2020)                           \
    X(get_error_name, "cuGetErrorName", PFN_cuGetErrorName_v6000)                                       \
    X(get_error_string, "cuGetErrorString", PFN_cuGetErrorString_v6000)                                 \
    /* devices */                                                                                       \
    X(device_get_count, "cuDeviceGetCount", PFN_cuDeviceGetCount_v2000)                                 \
    X(device_get, "cuDeviceGet", PFN_cuDeviceGet_v2000)                                                 \
    X(device_get_name, "cuDeviceGetName", PFN_cuDeviceGetName_v2000)                                    \
    X(device_get_uuid, "cuDeviceGetUuid_v2", PFN_cuDeviceGetUuid_v11040)                                \
    X(device_get_luid, "cuDeviceGetLuid", PFN_cuDeviceGetLuid_v10000)                                   \
    X(device_total_mem, "cuDeviceTotalMem_v2", PFN_cuDeviceTotalMem_v3020)                              \
    X(device_get_attribute, "cuDeviceGetAttribute", PFN_cuDeviceGetAttribute_v2000)                     \
    X(device_get_pci_bus_id, "cuDeviceGetPCIBusId", PFN_cuDeviceGetPCIBusId_v4010)                      \
    X(device_can_access_peer, "cuDeviceCanAccessPeer", PFN_cuDeviceCanAccessPeer_v4000)                 \
    /* contexts: the primary context, as the runtime uses */                                            \
    X(primary_ctx_retain, "cuDevicePrimaryCtxRetain", PFN_cuDevicePrimaryCtxRetain_v7000)               \
    X(primary_ctx_release, "cuDevicePrimaryCtxRelease_v2", PFN_cuDevicePrimaryCtxRelease_v11000)        \
    X(ctx_set_current, "cuCtxSetCurrent", PFN_cuCtxSetCurrent_v4000)                                    \
    X(ctx_get_current, "cuCtxGetCurrent", PFN_cuCtxGetCurrent_v4000)                                    \
    X(ctx_get_device, "cuCtxGetDevice", PFN_cuCtxGetDevice_v2000)                                       \
    X(ctx_synchronize, "cuCtxSynchronize", PFN_cuCtxSynchronize_v2000)                                  \
    X(ctx_get_limit, "cuCtxGetLimit", PFN_cuCtxGetLimit_v3010)                                          \
    X(ctx_enable_peer_access, "cuCtxEnablePeerAccess", PFN_cuCtxEnablePeerAccess_v4000)                 \
    /* device memory, copies (legacy default stream, as the runtime's default) */                       \
    X(mem_alloc, "cuMemAlloc_v2", PFN_cuMemAlloc_v3020)                                                 \
    X(mem_free, "cuMemFree_v2", PFN_cuMemFree_v3020)                                                    \
    X(mem_get_info, "cuMemGetInfo_v2", PFN_cuMemGetInfo_v3020)                                          \
    X(memset_d8, "cuMemsetD8_v2", PFN_cuMemsetD8_v3020)                                                 \
    X(memset_d8_async, "cuMemsetD8Async", PFN_cuMemsetD8Async_v3020)                                    \
    X(memcpy_htod, "cuMemcpyHtoD_v2", PFN_cuMemcpyHtoD_v3020)                                           \
    X(memcpy_dtoh, "cuMemcpyDtoH_v2", PFN_cuMemcpyDtoH_v3020)                                           \
    X(memcpy_htod_async, "cuMemcpyHtoDAsync_v2", PFN_cuMemcpyHtoDAsync_v3020)                           \
    X(memcpy_dtoh_async, "cuMemcpyDtoHAsync_v2", PFN_cuMemcpyDtoHAsync_v3020)                           \
    /* pinned host memory */                                                                            \
    X(mem_host_alloc, "cuMemHostAlloc", PFN_cuMemHostAlloc_v2020)                                       \
    X(mem_free_host, "cuMemFreeHost", PFN_cuMemFreeHost_v2000)                                          \
    X(mem_host_register, "cuMemHostRegister_v2", PFN_cuMemHostRegister_v6050)                           \
    X(mem_host_unregister, "cuMemHostUnregister", PFN_cuMemHostUnregister_v4000)                        \
    X(mem_host_get_device_pointer, "cuMemHostGetDevicePointer_v2", PFN_cuMemHostGetDevicePointer_v3020) \
    X(mem_host_get_flags, "cuMemHostGetFlags", PFN_cuMemHostGetFlags_v2030)                             \
    X(pointer_get_attribute, "cuPointerGetAttribute", PFN_cuPointerGetAttribute_v4000)                  \
    /* virtual memory management (host-located VMM) */                                                  \
    X(mem_get_allocation_granularity, "cuMemGetAllocationGranularity",                                  \
      PFN_cuMemGetAllocationGranularity_v10020)                                                         \
    X(mem_create, "cuMemCreate", PFN_cuMemCreate_v10020)                                                \
    X(mem_release, "cuMemRelease", PFN_cuMemRelease_v10020)                                             \
    X(mem_address_reserve, "cuMemAddressReserve", PFN_cuMemAddressReserve_v10020)                       \
    X(mem_address_free, "cuMemAddressFree", PFN_cuMemAddressFree_v10020)                                \
    X(mem_map, "cuMemMap", PFN_cuMemMap_v10020)                                                         \
    X(mem_unmap, "cuMemUnmap", PFN_cuMemUnmap_v10020)                                                   \
    X(mem_set_access, "cuMemSetAccess", PFN_cuMemSetAccess_v10020)                                      \
    /* stream-ordered pools (host-located pools) */                                                     \
    X(mem_pool_create, "cuMemPoolCreate", PFN_cuMemPoolCreate_v11020)                                   \
    X(mem_pool_destroy, "cuMemPoolDestroy", PFN_cuMemPoolDestroy_v11020)                                \
    X(mem_pool_set_access, "cuMemPoolSetAccess", PFN_cuMemPoolSetAccess_v11020)                         \
    X(mem_pool_get_attribute, "cuMemPoolGetAttribute", PFN_cuMemPoolGetAttribute_v11020)                \
    X(mem_alloc_from_pool_async, "cuMemAllocFromPoolAsync", PFN_cuMemAllocFromPoolAsync_v11020)         \
    X(mem_free_async, "cuMemFreeAsync", PFN_cuMemFreeAsync_v11020)                                      \
    /* streams and events */                                                                            \
    X(stream_create, "cuStreamCreate", PFN_cuStreamCreate_v2000)                                        \
    X(stream_destroy, "cuStreamDestroy_v2", PFN_cuStreamDestroy_v4000)                                  \
    X(stream_synchronize, "cuStreamSynchronize", PFN_cuStreamSynchronize_v2000)                         \
    X(event_create, "cuEventCreate", PFN_cuEventCreate_v2000)                                           \
    X(event_destroy, "cuEventDestroy_v2", PFN_cuEventDestroy_v4000)                                     \
    X(event_record, "cuEventRecord", PFN_cuEventRecord_v2000)                                           \
    X(event_synchronize, "cuEventSynchronize", PFN_cuEventSynchronize_v2000)                            \
    X(event_elapsed_time, "cuEventElapsedTime", PFN_cuEventElapsedTime_v2000)                           \
    /* kernels: PTX JIT-compiled by the driver (kernels_ptx) */                                         \
    X(module_load_data, "cuModuleLoadData", PFN_cuModuleLoadData_v2000)                                 \
    X(module_unload, "cuModuleUnload", PFN_cuModuleUnload_v2000)                                        \
    X(module_get_function, "cuModuleGetFunction", PFN_cuModuleGetFunction_v2000)                        \
    X(launch_kernel, "cuLaunchKernel", PFN_cuLaunchKernel_v4000)
#pragma once

#include <cuda.h>
#include <cudaTypedefs.h>

#include <memory>
#include <string>
#include <utility>

#include "pinbench/vocabulary/errors.hpp"

namespace pinbench {
class DynamicLibrary;
}

namespace pinbench::cuda {

// The oldest driver the core supports: CUDA 12.0, the R525 drivers (cuDriverGetVersion 12000).
// Every entry point above exists there; the host-located VMM and pools need newer drivers and
// say so through their device attributes.
inline constexpr int kOldestDriverVersion = 12000;
inline constexpr const char* kOldestDriverRelease = "CUDA 12.0 (R525)";

// The driver library's name on this platform.
#ifdef _WIN32
inline constexpr const char* kDriverLibrary = "nvcuda.dll";
#else
inline constexpr const char* kDriverLibrary = "libcuda.so.1";
#endif

// One resolved entry point: `fn` is null when the driver does not export `name`.
template <typename Fn>
struct DriverEntry {
    Fn fn = nullptr;
    const char* name = "";
};

class DriverApi {
public:
    // Loads the driver library and looks every entry point up; nullptr with *why ("no CUDA
    // driver (libcuda.so.1 not found: ...)") when the library cannot be loaded. Does not call
    // cuInit.
    static std::unique_ptr<DriverApi> load(std::string* why);
    ~DriverApi();
    DriverApi(const DriverApi&) = delete;
    DriverApi& operator=(const DriverApi&) = delete;

    // Calls the entry point and returns its status. Throws UnsupportedError naming the entry
    // point when this driver does not export it.
    template <typename Fn, typename... Args>
    CUresult status(const DriverEntry<Fn>& entry, Args&&... args) const {
        if (entry.fn == nullptr) throw UnsupportedError(missing(entry.name));
        return entry.fn(std::forward<Args>(args)...);
    }
    // Calls the entry point; throws CudaError(entry point, CUDA_ERROR_..., text) unless it
    // returns CUDA_SUCCESS, UnsupportedError when the driver does not export it.
    template <typename Fn, typename... Args>
    void call(const DriverEntry<Fn>& entry, Args&&... args) const {
        check(status(entry, std::forward<Args>(args)...), entry.name);
    }

    // Throws CudaError(api, status, cuGetErrorName, cuGetErrorString) unless CUDA_SUCCESS.
    void check(CUresult status, const std::string& api) const;
    // "CUDA_ERROR_OUT_OF_MEMORY", or "CUDA_ERROR_<n>" where the driver has no name for it.
    std::string error_name(CUresult status) const;
    std::string error_text(CUresult status) const;
    // "<entry point> not exported by this driver (libcuda.so.1)".
    std::string missing(const char* name) const;
    const std::string& library_name() const;

// A type cannot be parenthesised as a template argument.
#define PINBENCH_DRIVER_MEMBER(member, exported, type) \
    DriverEntry<type> member{nullptr, exported};  // NOLINT(bugprone-macro-parentheses)
    PINBENCH_DRIVER_ENTRY_POINTS(PINBENCH_DRIVER_MEMBER)
#undef PINBENCH_DRIVER_MEMBER

private:
    explicit DriverApi(std::unique_ptr<DynamicLibrary> library);
    std::unique_ptr<DynamicLibrary> library_;
};

// The process's driver, loaded, version-checked and cuInit'ed on first use and kept until the
// process exits, as the runtime keeps its own: the primary contexts, modules and pinned memory
// the core creates live as long. Throws UnsupportedError "no CUDA driver (...)" when the library
// is missing, the driver is older than kOldestDriverVersion, or cuInit fails (the reason names
// the error, e.g. CUDA_ERROR_NO_DEVICE).
const DriverApi& driver();

// As driver(), without throwing: nullptr with *why.
const DriverApi* try_driver(std::string* why);

// Makes the primary context of `device` current on this thread (cuDevicePrimaryCtxRetain +
// cuCtxSetCurrent), as cudaSetDevice does; the context is retained for the life of the
// process, as the runtime's is. Nothing happens when it is current already.
void make_current(int device);

// For destructors, which cannot report: calls the entry point when the driver is loaded and
// exports it, and ignores the result.
template <typename Fn, typename... Args>
void call_quietly(DriverEntry<Fn> DriverApi::*entry, Args... args) noexcept {
    try {
        const DriverApi& d = driver();
        if ((d.*entry).fn != nullptr) (void)(d.*entry).fn(args...);
    } catch (...) {  // NOLINT(bugprone-empty-catch): nothing to report to, see above
    }
}

// The device of the current context; when none is current, makes device 0's primary context
// current first, as the runtime does at its first call.
int current_device();

}  // namespace pinbench::cuda
