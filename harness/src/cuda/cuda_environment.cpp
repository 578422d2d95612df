// CUDA's part of the environment record. Attributes rather than cudaDeviceProp fields where
// possible: CUDA 13 removed several fields, attributes exist in 12.x and 13.x alike.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <nlohmann/json.hpp>

#include "pinbench/device.hpp"

namespace pinbench {
namespace {

nlohmann::json unavailable(const std::string& api, cudaError_t status) {
    (void)cudaGetLastError();
    return {{"unavailable", api + ": " + cudaGetErrorName(status)}};
}

nlohmann::json attribute(cudaDeviceAttr attr, int device, const char* api_name) {
    int v = 0;
    const cudaError_t s = cudaDeviceGetAttribute(&v, attr, device);
    if (s != cudaSuccess) return unavailable(std::string("cudaDeviceGetAttribute(") + api_name + ")", s);
    return v;
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

nlohmann::json describe_cuda(int device) {
    nlohmann::json j;
    int v = 0;
    cudaError_t s = cudaDriverGetVersion(&v);
    // The CUDA version the driver supports (e.g. 13000), not the driver release.
    j["cuda_driver_version"] = s == cudaSuccess ? nlohmann::json(v) : unavailable("cudaDriverGetVersion", s);
    s = cudaRuntimeGetVersion(&v);
    j["cuda_runtime_version"] =
        s == cudaSuccess ? nlohmann::json(v) : unavailable("cudaRuntimeGetVersion", s);
    j["cuda_runtime_built"] = CUDART_VERSION;
    const char* loading = std::getenv("CUDA_MODULE_LOADING");
    j["cuda_module_loading"] =
        loading ? nlohmann::json(loading) : nlohmann::json({{"unavailable", "not set (driver default)"}});
    if (device < 0) return j;

    nlohmann::json d;
    d["cuda_index"] = device;
    cudaDeviceProp prop{};
    s = cudaGetDeviceProperties(&prop, device);
    if (s == cudaSuccess) {
        d["name"] = prop.name;
        d["uuid"] = uuid_string(prop.uuid);
        d["total_global_mem"] = static_cast<std::uint64_t>(prop.totalGlobalMem);
#ifdef _WIN32
        d["luid"] = hex_bytes(prop.luid, sizeof prop.luid);
        d["luid_device_node_mask"] = prop.luidDeviceNodeMask;
#else
        d["luid"] = nlohmann::json({{"unavailable", "LUIDs exist on Windows only"}});
#endif
    } else {
        d["properties"] = unavailable("cudaGetDeviceProperties", s);
    }
    int major = 0, minor = 0;
    s = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
    if (s == cudaSuccess) s = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
    d["compute_capability"] = s == cudaSuccess
                                  ? nlohmann::json(std::to_string(major) + "." + std::to_string(minor))
                                  : unavailable("cudaDeviceGetAttribute(ComputeCapability)", s);
    d["tcc_driver"] = attribute(cudaDevAttrTccDriver, device, "TccDriver");
    d["unified_addressing"] = attribute(cudaDevAttrUnifiedAddressing, device, "UnifiedAddressing");
    d["can_map_host_memory"] = attribute(cudaDevAttrCanMapHostMemory, device, "CanMapHostMemory");
    d["integrated"] = attribute(cudaDevAttrIntegrated, device, "Integrated");
    d["pageable_memory_access"] = attribute(cudaDevAttrPageableMemoryAccess, device, "PageableMemoryAccess");
    d["host_register_supported"] =
        attribute(cudaDevAttrHostRegisterSupported, device, "HostRegisterSupported");
    d["async_engine_count"] = attribute(cudaDevAttrAsyncEngineCount, device, "AsyncEngineCount");
    d["pci_domain_id"] = attribute(cudaDevAttrPciDomainId, device, "PciDomainId");
    d["pci_bus_id"] = attribute(cudaDevAttrPciBusId, device, "PciBusId");
    d["pci_device_id"] = attribute(cudaDevAttrPciDeviceId, device, "PciDeviceId");
    d["numa_id"] = attribute(cudaDevAttrNumaId, device, "NumaId");
    std::size_t stack = 0;
    s = cudaDeviceGetLimit(&stack, cudaLimitStackSize);
    d["stack_limit_bytes"] = s == cudaSuccess ? nlohmann::json(static_cast<std::uint64_t>(stack))
                                              : unavailable("cudaDeviceGetLimit(cudaLimitStackSize)", s);
    j["device"] = d;
    return j;
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
