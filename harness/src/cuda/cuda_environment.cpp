// CUDA's facts for the environment record (pinbench/results/environment_record.hpp writes them), read
// through the driver table: what cudaGetDeviceProperties and cudaDeviceGetAttribute read, by
// the driver calls behind them (attributes exist in every driver the core supports).
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda/driver_api.hpp"
#include "pinbench/cuda/device.hpp"
#include "pinbench/platform/utf8.hpp"

namespace pinbench {
namespace {

constexpr const char* kNoRuntime = "no CUDA runtime: pinbench calls the CUDA driver API (docs/driver-api.md)";

std::string failed(const cuda::DriverApi& d, const std::string& api, CUresult status) {
    return api + ": " + d.error_name(status);
}

Maybe<int> attribute(const cuda::DriverApi& d, CUdevice_attribute attr, CUdevice device, const char* name) {
    int v = 0;
    const CUresult s = d.status(d.device_get_attribute, &v, attr, device);
    if (s != CUDA_SUCCESS) {
        return Maybe<int>::none(failed(d, std::string("cuDeviceGetAttribute(") + name + ")", s));
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

std::string uuid_string(const CUuuid& u) {
    const std::string h = hex_bytes(u.bytes, sizeof u.bytes);
    return "GPU-" + h.substr(0, 8) + "-" + h.substr(8, 4) + "-" + h.substr(12, 4) + "-" + h.substr(16, 4) +
           "-" + h.substr(20);
}

// The driver's handle of CUDA device `ordinal`, or nullopt with *why.
std::optional<CUdevice> device_handle(const cuda::DriverApi& d, int ordinal, std::string* why) {
    CUdevice device = 0;
    const CUresult s = d.status(d.device_get, &device, ordinal);
    if (s == CUDA_SUCCESS) return device;
    *why = failed(d, d.device_get.name, s);
    return std::nullopt;
}

// The name, UUID, memory and LUID cudaGetDeviceProperties gives, from their driver calls.
Maybe<CudaDeviceProperties> properties(const cuda::DriverApi& d, CUdevice device) {
    CudaDeviceProperties p;
    char name[256] = {};
    CUresult s = d.status(d.device_get_name, name, static_cast<int>(sizeof name), device);
    if (s != CUDA_SUCCESS) return Maybe<CudaDeviceProperties>::none(failed(d, d.device_get_name.name, s));
    p.name = name;
    CUuuid uuid{};
    s = d.status(d.device_get_uuid, &uuid, device);
    if (s != CUDA_SUCCESS) return Maybe<CudaDeviceProperties>::none(failed(d, d.device_get_uuid.name, s));
    p.uuid = uuid_string(uuid);
    std::size_t total = 0;
    s = d.status(d.device_total_mem, &total, device);
    if (s != CUDA_SUCCESS) return Maybe<CudaDeviceProperties>::none(failed(d, d.device_total_mem.name, s));
    p.total_global_mem = static_cast<std::uint64_t>(total);
#ifdef _WIN32
    char luid[8] = {};
    unsigned mask = 0;
    s = d.status(d.device_get_luid, luid, &mask, device);
    if (s == CUDA_SUCCESS) {
        p.luid = Maybe<std::string>::of(hex_bytes(luid, sizeof luid));
        p.luid_device_node_mask = mask;
    } else {
        // TCC devices have no LUID (the runtime reported a zero mask for them).
        p.luid = Maybe<std::string>::none(failed(d, d.device_get_luid.name, s));
        p.luid_device_node_mask = 0u;
    }
#else
    p.luid = Maybe<std::string>::none("LUIDs exist on Windows only");
#endif
    return Maybe<CudaDeviceProperties>::of(std::move(p));
}

}  // namespace

CudaFacts cuda_facts() {
    CudaFacts f;
    const std::optional<std::string> loading = environment_variable("CUDA_MODULE_LOADING");
    f.module_loading =
        loading ? Maybe<std::string>::of(*loading) : Maybe<std::string>::none("not set (driver default)");
    f.runtime_version = Maybe<int>::none(kNoRuntime);
    f.runtime_built = Maybe<int>::of(CUDA_VERSION);  // of the cuda.h this build read its types from
    std::string why;
    const cuda::DriverApi* d = cuda::try_driver(&why);
    if (d == nullptr) {
        f.driver_version = Maybe<int>::none(why);
        return f;
    }
    int v = 0;
    const CUresult s = d->status(d->driver_get_version, &v);
    f.driver_version =
        s == CUDA_SUCCESS ? Maybe<int>::of(v) : Maybe<int>::none(failed(*d, d->driver_get_version.name, s));
    return f;
}

CudaDeviceFacts cuda_device_facts(int ordinal) {
    CudaDeviceFacts facts;
    facts.cuda_index = ordinal;
    std::string why;
    const cuda::DriverApi* d = cuda::try_driver(&why);
    const std::optional<CUdevice> device = d != nullptr ? device_handle(*d, ordinal, &why) : std::nullopt;
    if (!device) {
        facts.properties = Maybe<CudaDeviceProperties>::none(why);
        facts.compute_capability = Maybe<std::string>::none(why);
        for (Maybe<int>* m :
             {&facts.tcc_driver, &facts.unified_addressing, &facts.can_map_host_memory, &facts.integrated,
              &facts.pageable_memory_access, &facts.host_register_supported, &facts.async_engine_count,
              &facts.pci_domain_id, &facts.pci_bus_id, &facts.pci_device_id, &facts.numa_id}) {
            *m = Maybe<int>::none(why);
        }
        facts.stack_limit_bytes = Maybe<std::uint64_t>::none(why);
        return facts;
    }
    facts.properties = properties(*d, *device);
    const Maybe<int> major =
        attribute(*d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, *device, "ComputeCapabilityMajor");
    const Maybe<int> minor =
        attribute(*d, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, *device, "ComputeCapabilityMinor");
    facts.compute_capability =
        major.value && minor.value
            ? Maybe<std::string>::of(std::to_string(*major.value) + "." + std::to_string(*minor.value))
            : Maybe<std::string>::none(major.value ? minor.why : major.why);
    facts.tcc_driver = attribute(*d, CU_DEVICE_ATTRIBUTE_TCC_DRIVER, *device, "TccDriver");
    facts.unified_addressing =
        attribute(*d, CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, *device, "UnifiedAddressing");
    facts.can_map_host_memory =
        attribute(*d, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, *device, "CanMapHostMemory");
    facts.integrated = attribute(*d, CU_DEVICE_ATTRIBUTE_INTEGRATED, *device, "Integrated");
    facts.pageable_memory_access =
        attribute(*d, CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS, *device, "PageableMemoryAccess");
    facts.host_register_supported =
        attribute(*d, CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, *device, "HostRegisterSupported");
    facts.async_engine_count =
        attribute(*d, CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, *device, "AsyncEngineCount");
    facts.pci_domain_id = attribute(*d, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, *device, "PciDomainId");
    facts.pci_bus_id = attribute(*d, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, *device, "PciBusId");
    facts.pci_device_id = attribute(*d, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, *device, "PciDeviceId");
    facts.numa_id = attribute(*d, CU_DEVICE_ATTRIBUTE_NUMA_ID, *device, "NumaId");
    // The current context's stack limit, as cudaDeviceGetLimit read it: the context of the
    // current device, device 0's primary context when none is current.
    try {
        (void)cuda::current_device();
        std::size_t stack = 0;
        const CUresult s = d->status(d->ctx_get_limit, &stack, CU_LIMIT_STACK_SIZE);
        facts.stack_limit_bytes =
            s == CUDA_SUCCESS
                ? Maybe<std::uint64_t>::of(static_cast<std::uint64_t>(stack))
                : Maybe<std::uint64_t>::none(failed(*d, "cuCtxGetLimit(CU_LIMIT_STACK_SIZE)", s));
    } catch (const std::exception& e) {
        facts.stack_limit_bytes = Maybe<std::uint64_t>::none(e.what());
    }
    return facts;
}

DeviceIdentity device_identity(int ordinal) {
    DeviceIdentity id;
    std::string why;
    const cuda::DriverApi* d = cuda::try_driver(&why);
    if (d == nullptr) return id;
    const std::optional<CUdevice> device = device_handle(*d, ordinal, &why);
    if (!device) return id;
    CUuuid uuid{};
    if (d->status(d->device_get_uuid, &uuid, *device) == CUDA_SUCCESS) id.uuid = uuid_string(uuid);
    char bus[32] = {};
    if (d->status(d->device_get_pci_bus_id, bus, static_cast<int>(sizeof bus), *device) == CUDA_SUCCESS) {
        id.pci_bus_id = bus;
    }
    return id;
}

std::optional<std::array<std::uint8_t, 8>> device_luid(int ordinal) {
#ifdef _WIN32
    std::string why;
    const cuda::DriverApi* d = cuda::try_driver(&why);
    if (d == nullptr) return std::nullopt;
    const std::optional<CUdevice> device = device_handle(*d, ordinal, &why);
    if (!device) return std::nullopt;
    std::array<std::uint8_t, 8> luid{};
    unsigned mask = 0;
    if (d->status(d->device_get_luid, reinterpret_cast<char*>(luid.data()), &mask, *device) != CUDA_SUCCESS) {
        return std::nullopt;
    }
    if (mask == 0) return std::nullopt;  // TCC: no WDDM adapter
    return luid;
#else
    (void)ordinal;
    return std::nullopt;
#endif
}

}  // namespace pinbench
