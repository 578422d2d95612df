// The CUDA driver entry points every driver the harness supports exports, with cuda.h's
// signatures (the compiler checks them against its declarations). Memory is host memory: the
// device memory it stands for is charged to the shared device state, as the script prices it.
#include <cuda.h>

#include <algorithm>
#include <cstring>
#include <string>

#include "api_callbacks.hpp"
#include "cupti_params.hpp"
#include "driver.hpp"
#include "identity.hpp"

using pinbench::driver_double::Context;
using pinbench::driver_double::current_context;
using pinbench::driver_double::driver;
using pinbench::driver_double::Driver;
using pinbench::driver_double::Event;
using pinbench::driver_double::Function;
using pinbench::driver_double::Module;
using pinbench::driver_double::Range;
using pinbench::driver_double::RangeKind;
using pinbench::driver_double::traced;

namespace {

struct ErrorText {
    CUresult code;
    const char* name;
    const char* text;
};

constexpr ErrorText error_texts[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
    {CUDA_ERROR_PEER_ACCESS_UNSUPPORTED, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED",
     "peer access is not supported"},
    {CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED",
     "peer access is already enabled"},
    {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
     "part or all of the requested memory range is already mapped"},
    {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
     "pointer does not correspond to a registered memory region"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const ErrorText* error_text(CUresult code) {
    for (const ErrorText& e : error_texts) {
        if (e.code == code) return &e;
    }
    return nullptr;
}

// The calls below need cuInit first, a valid device, or a current context, as on a driver.
CUresult initialized() { return driver().initialized ? CUDA_SUCCESS : CUDA_ERROR_NOT_INITIALIZED; }

CUresult valid_device(CUdevice device) {
    if (const CUresult r = initialized(); r != CUDA_SUCCESS) return r;
    return device >= 0 && device < driver().script.devices ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult with_context(int* device) {
    if (const CUresult r = initialized(); r != CUDA_SUCCESS) return r;
    const auto d = driver().current_device();
    if (!d) return CUDA_ERROR_INVALID_CONTEXT;
    *device = *d;
    return CUDA_SUCCESS;
}

std::uintptr_t address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }
void* pointer(CUdeviceptr p) { return pinbench::driver_double::host_pointer(p); }

// True when the device can reach [p, p + bytes): device memory or mapped host memory it knows.
bool reachable(CUdeviceptr p, std::size_t bytes) {
    Driver& d = driver();
    const std::lock_guard lock(d.mutex);
    return d.range_of(static_cast<std::uintptr_t>(p), bytes) != nullptr;
}

// Allocates `bytes` of host memory costing `cost` device bytes, as a range of `kind` (pinned or,
// a scripted silent fallback, not; with the pinning call's flags).
CUresult allocate(void** out, std::size_t bytes, std::uint64_t cost, RangeKind kind, bool pinned = true,
                  unsigned flags = 0) {
    int device = 0;
    if (const CUresult r = with_context(&device); r != CUDA_SUCCESS) return r;
    if (out == nullptr) return CUDA_ERROR_INVALID_VALUE;
    Driver& d = driver();
    if (!d.charge(device, cost)) return CUDA_ERROR_OUT_OF_MEMORY;
    void* p = pinbench::driver_double::map_memory(bytes);
    if (p == nullptr) {
        d.state.release(device, cost);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    Range range{bytes, device, cost, kind};
    range.pinned = pinned;
    range.flags = flags;
    d.add_range(address(p), range);
    *out = p;
    return CUDA_SUCCESS;
}

CUresult free_range(void* p, RangeKind kind) {
    if (const CUresult r = initialized(); r != CUDA_SUCCESS) return r;
    if (p == nullptr) return CUDA_SUCCESS;
    const auto range = driver().remove_range(address(p), kind);
    if (!range) return CUDA_ERROR_INVALID_VALUE;
    pinbench::driver_double::unmap_memory(p, range->bytes);
    return CUDA_SUCCESS;
}

CUresult pinned_alloc(void** out, std::size_t bytes, const char* api, unsigned flags) {
    if (const CUresult r = initialized(); r != CUDA_SUCCESS) return r;
    bool pinned = true;
    if (const CUresult r = driver().scripted_pin(api, bytes, &pinned); r != CUDA_SUCCESS) return r;
    const std::uint64_t cost = pinned ? driver().script.pin_cost(api, flags).of(bytes) : 0;
    return allocate(out, bytes, cost, RangeKind::pinned_host, pinned, flags);
}

CUresult copy(void* dst, const void* src, std::size_t bytes) {
    if (const CUresult r = initialized(); r != CUDA_SUCCESS) return r;
    if (bytes == 0) return CUDA_SUCCESS;
    if (!reachable(address(dst), bytes) && !reachable(address(src), bytes)) return CUDA_ERROR_INVALID_VALUE;
    std::memmove(dst, src, bytes);
    return CUDA_SUCCESS;
}

template <class Word>
CUresult fill(CUdeviceptr dst, Word value, std::size_t count) {
    if (const CUresult r = initialized(); r != CUDA_SUCCESS) return r;
    if (!reachable(dst, count * sizeof(Word))) return CUDA_ERROR_INVALID_VALUE;
    auto* words = static_cast<Word*>(pointer(dst));
    std::fill(words, words + count, value);
    return CUDA_SUCCESS;
}

// Values of the attributes the harness reads that no script sets; anything else is
// CUDA_ERROR_INVALID_VALUE, as a driver answers an attribute it does not know (the double
// invents no value it was not given).
struct FixedAttribute {
    int attribute;
    int value;
};

constexpr FixedAttribute fixed_attributes[] = {
    {CU_DEVICE_ATTRIBUTE_TCC_DRIVER, 0},
    {CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, 1},
    {CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, 1},
    {CU_DEVICE_ATTRIBUTE_INTEGRATED, 0},
    {CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, 0},
    {CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, 1},
    {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, 1},
    {CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 1024},
    {CU_DEVICE_ATTRIBUTE_WARP_SIZE, 32},
    {CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, 0},
    {CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, 0},
    {CU_DEVICE_ATTRIBUTE_NUMA_ID, -1},  // no NUMA affinity
    {CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, -1},
    {CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 1},
    {CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 1},
    {145, 1},  // HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED (13.0 headers)
    {CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, 1},
    {144, 1},  // HOST_MEMORY_POOLS_SUPPORTED (13.0 headers)
    {CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED, 1},
};

CUresult attribute(int* value, int which, int device) {
    const auto& s = driver().script;
    if (which == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR) {
        *value = s.compute_capability_major;
    } else if (which == CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR) {
        *value = s.compute_capability_minor;
    } else if (which == CU_DEVICE_ATTRIBUTE_PCI_BUS_ID) {
        *value = static_cast<int>(pinbench::driver_double::pci_bus(device));
    } else {
        const auto* found = std::find_if(std::begin(fixed_attributes), std::end(fixed_attributes),
                                         [which](const FixedAttribute& a) { return a.attribute == which; });
        if (found == std::end(fixed_attributes)) return CUDA_ERROR_INVALID_VALUE;
        *value = found->value;
    }
    return CUDA_SUCCESS;
}

CUresult host_register(void* p, size_t bytesize, unsigned int Flags) {
    int device = 0;
    if (const CUresult r = with_context(&device); r != CUDA_SUCCESS) return r;
    if (p == nullptr || bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
    bool pinned = true;
    if (const CUresult r = driver().scripted_pin("cuMemHostRegister_v2", bytesize, &pinned);
        r != CUDA_SUCCESS) {
        return r;
    }
    Driver& d = driver();
    {
        const std::lock_guard lock(d.mutex);
        for (const auto& [start, range] : d.ranges) {
            if (address(p) < start + range.bytes && start < address(p) + bytesize) {
                return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
            }
        }
    }
    const std::uint64_t cost = pinned ? d.script.pin_cost("cuMemHostRegister_v2", Flags).of(bytesize) : 0;
    if (!d.charge(device, cost)) return CUDA_ERROR_OUT_OF_MEMORY;
    Range range{bytesize, device, cost, RangeKind::registered_host};
    range.pinned = pinned;
    range.flags = Flags;
    d.add_range(address(p), range);
    return CUDA_SUCCESS;
}

CUresult host_unregister(void* p) {
    if (const CUresult r = initialized(); r != CUDA_SUCCESS) return r;
    return driver().remove_range(address(p), RangeKind::registered_host)
               ? CUDA_SUCCESS
               : CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
}

}  // namespace

extern "C" {

// --- Errors, initialisation, versions ---------------------------------------------------------

CUresult CUDAAPI cuGetErrorName(CUresult error, const char** pStr) {
    const ErrorText* e = error_text(error);
    if (pStr == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *pStr = e ? e->name : nullptr;
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char** pStr) {
    const ErrorText* e = error_text(error);
    if (pStr == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *pStr = e ? e->text : nullptr;
    return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuInit(unsigned int Flags) {
    if (Flags != 0) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult r = driver().scripted("cuInit"); r != CUDA_SUCCESS) return r;
    if (const CUresult r = driver().inject(); r != CUDA_SUCCESS) return r;
    Driver& d = driver();
    if (!d.initialized) {
        for (int dev = 0; dev < d.script.devices; ++dev) {
            if (d.script.init_cost > 0 && !d.state.charge_unlisted(dev, d.script.init_cost)) {
                return CUDA_ERROR_OUT_OF_MEMORY;
            }
        }
    }
    d.initialized = true;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDriverGetVersion(int* driverVersion) {
    if (driverVersion == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = driver().script.cuda_driver_version;
    return CUDA_SUCCESS;
}

// Versioned names first ("_v2"), as the driver serves the newest ABI it has for a name.
CUresult CUDAAPI cuGetProcAddress_v2(const char* symbol, void** pfn, int cudaVersion, cuuint64_t flags,
                                     CUdriverProcAddressQueryResult* symbolStatus) {
    (void)cudaVersion;
    (void)flags;
    if (symbol == nullptr || pfn == nullptr) return CUDA_ERROR_INVALID_VALUE;
    void* found = nullptr;
    for (const char* suffix : {"_v3", "_v2", ""}) {
        found = pinbench::driver_double::own_export((std::string(symbol) + suffix).c_str());
        if (found != nullptr) break;
    }
    *pfn = found;
    if (symbolStatus != nullptr) {
        *symbolStatus = found ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    }
    return found ? CUDA_SUCCESS : CUDA_ERROR_NOT_FOUND;
}

// --- Devices ----------------------------------------------------------------------------------

CUresult CUDAAPI cuDeviceGetCount(int* count) {
    if (const CUresult r = initialized(); r != CUDA_SUCCESS) return r;
    if (count == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *count = driver().script.devices;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice* device, int ordinal) {
    if (const CUresult r = valid_device(ordinal); r != CUDA_SUCCESS) return r;
    if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char* name, int len, CUdevice dev) {
    if (const CUresult r = valid_device(dev); r != CUDA_SUCCESS) return r;
    if (name == nullptr || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    const std::string text = pinbench::driver_double::device_name();
    std::snprintf(name, static_cast<std::size_t>(len), "%s", text.c_str());
    return CUDA_SUCCESS;
}

namespace {
CUresult device_uuid_of(CUuuid* uuid, CUdevice dev) {
    if (const CUresult r = valid_device(dev); r != CUDA_SUCCESS) return r;
    if (uuid == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const auto bytes = pinbench::driver_double::device_uuid(dev);
    std::memcpy(uuid->bytes, bytes.data(), bytes.size());
    return CUDA_SUCCESS;
}
}  // namespace

// CUDA 13's cuda.h maps the plain name to the _v2 export (and declares no plain one); 12.x
// declares both. The double exports both names either way, as a driver does.
#undef cuDeviceGetUuid
extern "C" CUresult CUDAAPI cuDeviceGetUuid(CUuuid* uuid, CUdevice dev) { return device_uuid_of(uuid, dev); }
CUresult CUDAAPI cuDeviceGetUuid_v2(CUuuid* uuid, CUdevice dev) { return device_uuid_of(uuid, dev); }

// LUIDs are a Windows (WDDM) fact; on Linux a driver has none to give.
CUresult CUDAAPI cuDeviceGetLuid(char* luid, unsigned int* deviceNodeMask, CUdevice dev) {
    (void)luid;
    (void)deviceNodeMask;
    if (const CUresult r = valid_device(dev); r != CUDA_SUCCESS) return r;
    return CUDA_ERROR_NOT_SUPPORTED;
}

CUresult CUDAAPI cuDeviceTotalMem_v2(size_t* bytes, CUdevice dev) {
    if (const CUresult r = valid_device(dev); r != CUDA_SUCCESS) return r;
    if (bytes == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *bytes = driver().script.total_memory;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int* pi, CUdevice_attribute attrib, CUdevice dev) {
    if (const CUresult r = valid_device(dev); r != CUDA_SUCCESS) return r;
    if (pi == nullptr) return CUDA_ERROR_INVALID_VALUE;
    return attribute(pi, static_cast<int>(attrib), dev);
}

CUresult CUDAAPI cuDeviceGetPCIBusId(char* pciBusId, int len, CUdevice dev) {
    if (const CUresult r = valid_device(dev); r != CUDA_SUCCESS) return r;
    if (pciBusId == nullptr || len <= 0) return CUDA_ERROR_INVALID_VALUE;
    std::snprintf(pciBusId, static_cast<std::size_t>(len), "%s",
                  pinbench::driver_double::pci_bus_id(dev, 4).c_str());
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceCanAccessPeer(int* canAccessPeer, CUdevice dev, CUdevice peerDev) {
    if (const CUresult r = valid_device(dev); r != CUDA_SUCCESS) return r;
    if (const CUresult r = valid_device(peerDev); r != CUDA_SUCCESS) return r;
    if (canAccessPeer == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *canAccessPeer = dev != peerDev ? 1 : 0;
    return CUDA_SUCCESS;
}

// --- Contexts: the primary context costs the scripted context_cost on its device --------------

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext* pctx, CUdevice dev) {
    if (const CUresult r = valid_device(dev); r != CUDA_SUCCESS) return r;
    if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult r = driver().scripted("cuDevicePrimaryCtxRetain"); r != CUDA_SUCCESS) return r;
    Driver& d = driver();
    Context& c = d.contexts[dev];
    if (c.primary_retains == 0) {
        if (!d.charge(dev, d.script.context_cost)) return CUDA_ERROR_OUT_OF_MEMORY;
        d.state.open_context(dev);
    }
    ++c.primary_retains;
    *pctx = reinterpret_cast<CUcontext>(&c);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
    if (const CUresult r = valid_device(dev); r != CUDA_SUCCESS) return r;
    Driver& d = driver();
    Context& c = d.contexts[dev];
    if (c.primary_retains == 0) return CUDA_ERROR_INVALID_CONTEXT;
    if (--c.primary_retains == 0) {
        d.state.release(dev, d.script.context_cost);
        d.state.close_context(dev);
        if (current_context() == &c) current_context() = nullptr;
    }
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int* flags, int* active) {
    if (const CUresult r = valid_device(dev); r != CUDA_SUCCESS) return r;
    if (flags == nullptr || active == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *flags = 0;
    *active = driver().contexts[dev].primary_retains > 0 ? 1 : 0;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx) {
    if (const CUresult r = initialized(); r != CUDA_SUCCESS) return r;
    current_context() = reinterpret_cast<Context*>(ctx);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetCurrent(CUcontext* pctx) {
    if (const CUresult r = initialized(); r != CUDA_SUCCESS) return r;
    if (pctx == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *pctx = reinterpret_cast<CUcontext>(current_context());
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxPushCurrent_v2(CUcontext ctx) { return cuCtxSetCurrent(ctx); }

CUresult CUDAAPI cuCtxPopCurrent_v2(CUcontext* pctx) {
    if (const CUresult r = initialized(); r != CUDA_SUCCESS) return r;
    if (pctx != nullptr) *pctx = reinterpret_cast<CUcontext>(current_context());
    current_context() = nullptr;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxGetDevice(CUdevice* device) {
    int d = 0;
    if (const CUresult r = with_context(&d); r != CUDA_SUCCESS) return r;
    if (device == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *device = d;
    return CUDA_SUCCESS;
}

// Every call of the double completes before it returns.
CUresult CUDAAPI cuCtxSynchronize() {
    int d = 0;
    if (const CUresult r = with_context(&d); r != CUDA_SUCCESS) return r;
    return driver().scripted("cuCtxSynchronize");
}

CUresult CUDAAPI cuCtxGetLimit(size_t* pvalue, CUlimit limit) {
    int d = 0;
    if (const CUresult r = with_context(&d); r != CUDA_SUCCESS) return r;
    if (pvalue == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (limit != CU_LIMIT_STACK_SIZE) return CUDA_ERROR_NOT_SUPPORTED;
    *pvalue = 1024;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags) {
    int d = 0;
    if (const CUresult r = with_context(&d); r != CUDA_SUCCESS) return r;
    if (peerContext == nullptr || Flags != 0) return CUDA_ERROR_INVALID_VALUE;
    if (reinterpret_cast<Context*>(peerContext)->device == d) return CUDA_ERROR_INVALID_DEVICE;
    return CUDA_SUCCESS;
}

// --- Memory -----------------------------------------------------------------------------------

CUresult CUDAAPI cuMemGetInfo_v2(size_t* free, size_t* total) {
    int device = 0;
    if (const CUresult r = with_context(&device); r != CUDA_SUCCESS) return r;
    if (free == nullptr || total == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult r = driver().scripted("cuMemGetInfo_v2"); r != CUDA_SUCCESS) return r;
    Driver& d = driver();
    // Scripted blind: free stays where it was before anything ran, whatever was allocated.
    const std::uint64_t used =
        d.script.blind.count("cuMemGetInfo") != 0 ? d.script.reserved_memory : d.state.used(device);
    *total = d.script.total_memory;
    *free = d.script.total_memory - std::min<std::uint64_t>(used, d.script.total_memory);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc_v2(CUdeviceptr* dptr, size_t bytesize) {
    if (const CUresult r = initialized(); r != CUDA_SUCCESS) return r;
    if (bytesize == 0) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult r = driver().scripted("cuMemAlloc_v2", bytesize); r != CUDA_SUCCESS) return r;
    void* p = nullptr;
    const CUresult r = allocate(&p, bytesize, bytesize, RangeKind::device);
    if (r == CUDA_SUCCESS) *dptr = static_cast<CUdeviceptr>(address(p));
    return r;
}

CUresult CUDAAPI cuMemFree_v2(CUdeviceptr dptr) { return free_range(pointer(dptr), RangeKind::device); }

// The host-pinning entry points make CUPTI callbacks around their work (api_callbacks.hpp).
CUresult CUDAAPI cuMemAllocHost_v2(void** pp, size_t bytesize) {
    const cuMemAllocHost_v2_params params{pp, bytesize};
    return traced(CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2, "cuMemAllocHost_v2", &params,
                  [&] { return pinned_alloc(pp, bytesize, "cuMemAllocHost_v2", 0); });
}

CUresult CUDAAPI cuMemHostAlloc(void** pp, size_t bytesize, unsigned int Flags) {
    const cuMemHostAlloc_params params{pp, bytesize, Flags};
    return traced(CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc, "cuMemHostAlloc", &params,
                  [&] { return pinned_alloc(pp, bytesize, "cuMemHostAlloc", Flags); });
}

CUresult CUDAAPI cuMemFreeHost(void* p) {
    const cuMemFreeHost_params params{p};
    return traced(CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost, "cuMemFreeHost", &params,
                  [&] { return free_range(p, RangeKind::pinned_host); });
}

CUresult CUDAAPI cuMemHostRegister_v2(void* p, size_t bytesize, unsigned int Flags) {
    const cuMemHostRegister_v2_params params{p, bytesize, Flags};
    return traced(CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2, "cuMemHostRegister_v2", &params,
                  [&] { return host_register(p, bytesize, Flags); });
}

CUresult CUDAAPI cuMemHostUnregister(void* p) {
    const cuMemHostUnregister_params params{p};
    return traced(CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister, "cuMemHostUnregister", &params,
                  [&] { return host_unregister(p); });
}

// Unified addressing: the device sees pinned host memory at its host address.
CUresult CUDAAPI cuMemHostGetDevicePointer_v2(CUdeviceptr* pdptr, void* p, unsigned int Flags) {
    if (const CUresult r = initialized(); r != CUDA_SUCCESS) return r;
    if (pdptr == nullptr || Flags != 0) return CUDA_ERROR_INVALID_VALUE;
    Driver& d = driver();
    const std::lock_guard lock(d.mutex);
    const Range* range = d.range_of(address(p), 1);
    if (range == nullptr || range->kind == RangeKind::device) return CUDA_ERROR_INVALID_VALUE;
    *pdptr = static_cast<CUdeviceptr>(address(p));
    return CUDA_SUCCESS;
}

// What the driver knows of a pointer: only the memory type, and only of memory it allocated or
// registered; memory a silent fallback left pageable is unknown to it (CUDA_ERROR_INVALID_VALUE,
// as a driver answers for pageable memory).
CUresult CUDAAPI cuPointerGetAttribute(void* data, CUpointer_attribute attribute, CUdeviceptr ptr) {
    if (const CUresult r = initialized(); r != CUDA_SUCCESS) return r;
    if (data == nullptr || attribute != CU_POINTER_ATTRIBUTE_MEMORY_TYPE) return CUDA_ERROR_INVALID_VALUE;
    Driver& d = driver();
    const std::lock_guard lock(d.mutex);
    const Range* range = d.range_of(static_cast<std::uintptr_t>(ptr), 1);
    if (range == nullptr || !range->pinned) return CUDA_ERROR_INVALID_VALUE;
    const bool host = range->kind == RangeKind::pinned_host || range->kind == RangeKind::registered_host;
    *static_cast<unsigned int*>(data) = host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostGetFlags(unsigned int* pFlags, void* p) {
    if (const CUresult r = initialized(); r != CUDA_SUCCESS) return r;
    if (pFlags == nullptr) return CUDA_ERROR_INVALID_VALUE;
    Driver& d = driver();
    const std::lock_guard lock(d.mutex);
    const Range* range = d.range_of(address(p), 1);
    if (range == nullptr || !range->pinned || range->kind != RangeKind::pinned_host)
        return CUDA_ERROR_INVALID_VALUE;
    *pFlags = range->flags;
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N) {
    return fill<unsigned char>(dstDevice, uc, N);
}
CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream) {
    return fill<unsigned char>(dstDevice, uc, N);
}
CUresult CUDAAPI cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N) {
    return fill<unsigned int>(dstDevice, ui, N);
}
CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream) {
    return fill<unsigned int>(dstDevice, ui, N);
}

CUresult CUDAAPI cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount) {
    return copy(pointer(dst), pointer(src), ByteCount);
}
CUresult CUDAAPI cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount, CUstream) {
    return copy(pointer(dst), pointer(src), ByteCount);
}
CUresult CUDAAPI cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount) {
    return copy(pointer(dstDevice), srcHost, ByteCount);
}
CUresult CUDAAPI cuMemcpyHtoDAsync_v2(CUdeviceptr dstDevice, const void* srcHost, size_t ByteCount,
                                      CUstream) {
    return copy(pointer(dstDevice), srcHost, ByteCount);
}
CUresult CUDAAPI cuMemcpyDtoH_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount) {
    return copy(dstHost, pointer(srcDevice), ByteCount);
}
CUresult CUDAAPI cuMemcpyDtoHAsync_v2(void* dstHost, CUdeviceptr srcDevice, size_t ByteCount, CUstream) {
    return copy(dstHost, pointer(srcDevice), ByteCount);
}
CUresult CUDAAPI cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount) {
    return copy(pointer(dstDevice), pointer(srcDevice), ByteCount);
}

// --- Streams and events: work is done when its call returns -----------------------------------

CUresult CUDAAPI cuStreamCreate(CUstream* phStream, unsigned int Flags) {
    (void)Flags;
    int d = 0;
    if (const CUresult r = with_context(&d); r != CUDA_SUCCESS) return r;
    if (phStream == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *phStream = reinterpret_cast<CUstream>(new int(d));
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamDestroy_v2(CUstream hStream) {
    delete reinterpret_cast<int*>(hStream);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamSynchronize(CUstream) { return initialized(); }
CUresult CUDAAPI cuStreamQuery(CUstream) { return initialized(); }

CUresult CUDAAPI cuEventCreate(CUevent* phEvent, unsigned int Flags) {
    (void)Flags;
    int d = 0;
    if (const CUresult r = with_context(&d); r != CUDA_SUCCESS) return r;
    if (phEvent == nullptr) return CUDA_ERROR_INVALID_VALUE;
    *phEvent = reinterpret_cast<CUevent>(new Event);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventDestroy_v2(CUevent hEvent) {
    delete reinterpret_cast<Event*>(hEvent);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream) {
    if (hEvent == nullptr) return CUDA_ERROR_INVALID_HANDLE;
    reinterpret_cast<Event*>(hEvent)->recorded = std::chrono::steady_clock::now();
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent) {
    return hEvent == nullptr ? CUDA_ERROR_INVALID_HANDLE : initialized();
}
CUresult CUDAAPI cuEventQuery(CUevent hEvent) {
    return hEvent == nullptr ? CUDA_ERROR_INVALID_HANDLE : initialized();
}

namespace {
CUresult elapsed_time(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
    if (pMilliseconds == nullptr || hStart == nullptr || hEnd == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const auto& start = reinterpret_cast<Event*>(hStart)->recorded;
    const auto& end = reinterpret_cast<Event*>(hEnd)->recorded;
    if (!start || !end) return CUDA_ERROR_INVALID_HANDLE;
    *pMilliseconds = std::chrono::duration<float, std::milli>(*end - *start).count();
    return CUDA_SUCCESS;
}
}  // namespace

// As cuDeviceGetUuid above: CUDA 13's cuda.h maps the plain name to _v2.
#undef cuEventElapsedTime
extern "C" CUresult CUDAAPI cuEventElapsedTime(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
    return elapsed_time(pMilliseconds, hStart, hEnd);
}
CUresult CUDAAPI cuEventElapsedTime_v2(float* pMilliseconds, CUevent hStart, CUevent hEnd) {
    return elapsed_time(pMilliseconds, hStart, hEnd);
}

// --- Modules and kernels: PTX is kept, the harness's kernels are known by entry name ----------

CUresult CUDAAPI cuModuleLoadData(CUmodule* module, const void* image) {
    int d = 0;
    if (const CUresult r = with_context(&d); r != CUDA_SUCCESS) return r;
    if (module == nullptr || image == nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult r = driver().scripted("cuModuleLoadData"); r != CUDA_SUCCESS) return r;
    std::string ptx(static_cast<const char*>(image));
    if (ptx.find(".version") == std::string::npos || ptx.find(".entry") == std::string::npos) {
        return CUDA_ERROR_INVALID_IMAGE;  // the double reads PTX text only
    }
    *module = reinterpret_cast<CUmodule>(new Module{std::move(ptx)});
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleLoadDataEx(CUmodule* module, const void* image, unsigned int, CUjit_option*,
                                    void**) {
    return cuModuleLoadData(module, image);
}

CUresult CUDAAPI cuModuleUnload(CUmodule hmod) {
    delete reinterpret_cast<Module*>(hmod);
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuModuleGetFunction(CUfunction* hfunc, CUmodule hmod, const char* name) {
    if (hfunc == nullptr || hmod == nullptr || name == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const std::string& ptx = reinterpret_cast<Module*>(hmod)->ptx;
    const std::string entry = std::string(".entry ") + name;
    const auto at = ptx.find(entry);
    const auto after = at == std::string::npos ? std::string::npos : at + entry.size();
    if (after == std::string::npos || after >= ptx.size() || (ptx[after] != '(' && ptx[after] != ' ')) {
        return CUDA_ERROR_NOT_FOUND;
    }
    // Functions live as long as the module in a driver; here until the process ends (a few).
    *hfunc = reinterpret_cast<CUfunction>(new Function{name, pinbench::driver_double::effect_of(name)});
    return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                                unsigned int gridDimZ, unsigned int blockDimX, unsigned int blockDimY,
                                unsigned int blockDimZ, unsigned int sharedMemBytes, CUstream hStream,
                                void** kernelParams, void** extra) {
    (void)gridDimX, (void)gridDimY, (void)gridDimZ, (void)blockDimX, (void)blockDimY, (void)blockDimZ;
    (void)sharedMemBytes, (void)hStream;
    int d = 0;
    if (const CUresult r = with_context(&d); r != CUDA_SUCCESS) return r;
    if (f == nullptr || extra != nullptr) return CUDA_ERROR_INVALID_VALUE;
    if (const CUresult r = driver().scripted("cuLaunchKernel"); r != CUDA_SUCCESS) return r;
    return pinbench::driver_double::run_kernel(*reinterpret_cast<Function*>(f), kernelParams);
}

}  // extern "C"
