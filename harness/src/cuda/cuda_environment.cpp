// CUDA's facts for the environment record (pinbench/environment_record.hpp writes them).
// Attributes rather than cudaDeviceProp fields where possible: CUDA 13 removed several fields,
// attributes exist in 12.x and 13.x alike.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "pinbench/device.hpp"

namespace pinbench {
namespace {

std::string failed(const std::string& api, cudaError_t status) {
    (void)cudaGetLastError();
    return api + ": " + cudaGetErrorName(status);
}

Maybe<int> attribute(cudaDeviceAttr attr, int device, const char* api_name) {
    int v = 0;
    const cudaError_t s = cudaDeviceGetAttribute(&v, attr, device);
    if (s != cudaSuccess) {
        return Maybe<int>::none(failed(std::string("cudaDeviceGetAttribute(") + api_name + ")", s));
    }
    return Maybe<int>::of(v);
}

std::string hex_bytes(const void* data, std::size_t n) {
    std::string out;
    const auto* b = static_cast<const unsigned char*>(data);
    char buf[3];
    for (std::size_t i = 0; i < n; ++i) {
        std::snprintf(buf, sizeof buf, "%02x", b[i]);
        out += buf;
    }
    return out;
}

std::string uuid_string(const cudaUUID_t& u) {
    const std::string h = hex_bytes(u.bytes, sizeof u.bytes);
    return "GPU-" + h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) +
           "-" + h.substr(20);
}

}  // namespace

CudaFacts cuda_facts() {
    CudaFacts f;
    int v = 0;
    cudaError_t s = cudaDriverGetVersion(&v);
    f.driver_version =
        s == cudaSuccess ? Maybe<int>::of(v) : Maybe<int>::none(failed("cudaDriverGetVersion", s));
    s = cudaRuntimeGetVersion(&v);
    f.runtime_version =
        s == cudaSuccess ? Maybe<int>::of(v) : Maybe<int>::none(failed("cudaRuntimeGetVersion", s));
    f.runtime_built = Maybe<int>::of(CUDART_VERSION);
    const char* loading = std::getenv("CUDA_MODULE_LOADING");
    f.module_loading =
        loading ? Maybe<std::string>::of(loading) : Maybe<std::string>::none("not set (driver default)");
    return f;
}

CudaDeviceFacts cuda_device_facts(int device) {
    CudaDeviceFacts d;
    d.cuda_index = device;
    cudaDeviceProp prop{};
    cudaError_t s = cudaGetDeviceProperties(&prop, device);
    if (s == cudaSuccess) {
        CudaDeviceProperties p;
        p.name = prop.name;
        p.uuid = uuid_string(prop.uuid);
        p.total_global_mem = static_cast<std::uint64_t>(prop.totalGlobalMem);
#ifdef _WIN32
        p.luid = Maybe<std::string>::of(hex_bytes(prop.luid, sizeof prop.luid));
        p.luid_device_node_mask = prop.luidDeviceNodeMask;
#else
        p.luid = Maybe<std::string>::none("LUIDs exist on Windows only");
#endif
        d.properties = Maybe<CudaDeviceProperties>::of(std::move(p));
    } else {
        d.properties = Maybe<CudaDeviceProperties>::none(failed("cudaGetDeviceProperties", s));
    }
    int major = 0, minor = 0;
    s = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    if (s == cudaSuccess) s = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    d.compute_capability =
        s == cudaSuccess ? Maybe<std::string>::of(std::to_string(major) + "." + std::to_string(minor))
                         : Maybe<std::string>::none(failed("cudaDeviceGetAttribute(ComputeCapability)", s));
    d.tcc_driver = attribute(cudaDevAttrTccDriver, device, "TccDriver");
    d.unified_addressing = attribute(cudaDevAttrUnifiedAddressing, device, "UnifiedAddressing");
    d.can_map_host_memory = attribute(cudaDevAttrCanMapHostMemory, device, "CanMapHostMemory");
    d.integrated = attribute(cudaDevAttrIntegrated, device, "Integrated");
    d.pageable_memory_access = attribute(cudaDevAttrPageableMemoryAccess, device, "PageableMemoryAccess");
    d.host_register_supported = attribute(cudaDevAttrHostRegisterSupported, device, "HostRegisterSupported");
    d.async_engine_count = attribute(cudaDevAttrAsyncEngineCount, device, "AsyncEngineCount");
    d.pci_domain_id = attribute(cudaDevAttrPciDomainId, device, "PciDomainId");
    d.pci_bus_id = attribute(cudaDevAttrPciBusId, device, "PciBusId");
    d.pci_device_id = attribute(cudaDevAttrPciDeviceId, device, "PciDeviceId");
    d.numa_id = attribute(cudaDevAttrNumaId, device, "NumaId");
    std::size_t stack = 0;
    s = cudaDeviceGetLimit(&stack, cudaLimitStackSize);
    d.stack_limit_bytes =
        s == cudaSuccess ? Maybe<std::uint64_t>::of(static_cast<std::uint64_t>(stack))
                         : Maybe<std::uint64_t>::none(failed("cudaDeviceGetLimit(cudaLimitStackSize)", s));
    return d;
}

DeviceIdentity device_identity(int device) {
    DeviceIdentity id;
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
        id.uuid = uuid_string(prop.uuid);
    } else {
        (void)cudaGetLastError();
    }
    char bus[32] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) == cudaSuccess) {
        id.pci_bus_id = bus;
    } else {
        (void)cudaGetLastError();
    }
    return id;
}

std::optional<std::array<std::uint8_t, 8>> device_luid(int device) {
#ifdef _WIN32
    cudaDeviceProp prop{};
    if (cudaGetDeviceProperties(&prop, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return std::nullopt;
    }
    if (prop.luidDeviceNodeMask == 0) return std::nullopt;  // TCC: no WDDM adapter
    std::array<std::uint8_t, 8> luid{};
    std::memcpy(luid.data(), prop.luid, luid.size());
    return luid;
#else
    (void)device;
    return std::nullopt;
#endif
}

}  // namespace pinbench
