// Host-located VMM memory: cuMemCreate with a host location, cuMemAddressReserve, cuMemMap,
// cuMemSetAccess, through the driver table (driver_api.hpp).

#include <string>
#include <utility>

#include "cuda/driver_api.hpp"
#include "cuda/host_allocators.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "platform/huge_pages.hpp"

namespace pinbench::cuda {
namespace {

// CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED (145) is in the CUDA 13.0
// headers, not in 12.x; users build with 12.x, so the value is spelled here. Drivers that do
// not know it answer CUDA_ERROR_INVALID_VALUE, which reads as "not supported".
constexpr auto kHostVmmSupported = static_cast<CUdevice_attribute>(145);

// The attribute's value; nullopt-like -1 with `error` set when the driver does not know it.
int attribute(const DriverApi& api, CUdevice device, CUdevice_attribute which, std::string* error) {
    int value = 0;
    const CUresult status = api.status(api.device_get_attribute, &value, which, device);
    if (status == CUDA_SUCCESS) return value;
    *error = api.error_name(status);
    return -1;
}

// The allocation's location after checking that the driver supports it; UnsupportedError else.
CUmemLocation host_location(const DriverApi& api, CUdevice device, HostLocation where) {
    std::string error;
    if (attribute(api, device, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, &error) != 1) {
        throw UnsupportedError(
            "cuMemCreate: virtual memory management not supported on this device "
            "(CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = 0" +
            (error.empty() ? std::string() : ", " + error) + ")");
    }
    CUmemLocation location{};
    if (where == HostLocation::host) {
        const int supported = attribute(api, device, kHostVmmSupported, &error);
        if (supported != 1) {
            throw UnsupportedError(
                "cuMemCreate with a host location: not supported by this driver "
                "(CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = " +
                (supported < 0 ? "unknown to the driver: " + error : std::to_string(supported)) + ")");
        }
        location.type = CU_MEM_LOCATION_TYPE_HOST;
        location.id = 0;  // ignored for HOST
        return location;
    }
    const int supported =
        attribute(api, device, CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, &error);
    if (supported != 1) {
        throw UnsupportedError(
            "cuMemCreate with a host NUMA location: not supported by this driver "
            "(CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED = " +
            (supported < 0 ? "unknown to the driver: " + error : std::to_string(supported)) + ")");
    }
    const int numa = attribute(api, device, CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, &error);
    location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
    location.id = numa < 0 ? 0 : numa;  // "where NUMA is not available, id must be 0"
    return location;
}

class VmmHostBuffer final : public HostBuffer {
public:
    VmmHostBuffer(ApiVariant api, std::size_t bytes) : api_(api), size_(bytes), driver_(driver()) {
        const int ordinal = current_device();  // a primary context is current from here on
        CUdevice device = 0;
        driver_.call(driver_.device_get, &device, ordinal);
        location_ = host_location(driver_, device, api.location);

        CUmemAllocationProp prop{};
        prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location = location_;
        prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_NONE;  // HOST allocations are not IPC capable
        driver_.call(driver_.mem_get_allocation_granularity, &granularity_, &prop,
                     CU_MEM_ALLOC_GRANULARITY_MINIMUM);
        const std::size_t b = bytes == 0 ? 1 : bytes;
        mapped_bytes_ = (b + granularity_ - 1) / granularity_ * granularity_;

        const CUresult created = driver_.status(driver_.mem_create, &handle_, mapped_bytes_, &prop, 0ULL);
        if (created == CUDA_ERROR_NOT_SUPPORTED) {
            throw UnsupportedError("cuMemCreate at " + std::string(to_string(api.location)) +
                                   " failed with CUDA_ERROR_NOT_SUPPORTED although the device attribute says "
                                   "it is supported");
        }
        driver_.check(created, driver_.mem_create.name);
        has_handle_ = true;
        try {
            driver_.call(driver_.mem_address_reserve, &address_, mapped_bytes_, granularity_, CUdeviceptr{0},
                         0ULL);
            driver_.call(driver_.mem_map, address_, mapped_bytes_, std::size_t{0}, handle_, 0ULL);
            mapped_ = true;
            // Read/write for the device, and for the CPU so the host can fill and read it.
            CUmemAccessDesc access[2]{};
            access[0].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
            access[0].location.id = ordinal;
            access[0].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            access[1].location = location_;
            access[1].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            driver_.call(driver_.mem_set_access, address_, mapped_bytes_,
                         static_cast<const CUmemAccessDesc*>(access), std::size_t{2});
        } catch (...) {
            free_all();
            throw;
        }
    }
    ~VmmHostBuffer() override { free_all(); }

    ApiVariant api() const override { return api_; }
    // The driver API gives the reserved range as an integer (CUdeviceptr); host and device see it
    // at the same address.
    std::byte* data() const override {
        return reinterpret_cast<std::byte*>(address_);  // NOLINT(performance-no-int-to-ptr)
    }
    std::size_t size() const override { return size_; }
    void* device_pointer() const override {
        return reinterpret_cast<void*>(address_);  // NOLINT(performance-no-int-to-ptr)
    }
    nlohmann::json backing() const override {
        nlohmann::json record = platform::verified_backing(data(), size_, PageKind::standard);
        record["location"] = std::string(to_string(api_.location));
        if (location_.type == CU_MEM_LOCATION_TYPE_HOST_NUMA) record["numa_node"] = location_.id;
        record["granularity_bytes"] = granularity_;
        record["allocated_bytes"] = mapped_bytes_;
        return record;
    }

private:
    void free_all() noexcept {
        if (mapped_) call_quietly(&DriverApi::mem_unmap, address_, mapped_bytes_);
        if (address_ != 0) call_quietly(&DriverApi::mem_address_free, address_, mapped_bytes_);
        if (has_handle_) call_quietly(&DriverApi::mem_release, handle_);
        mapped_ = has_handle_ = false;
        address_ = 0;
    }

    ApiVariant api_;
    std::size_t size_;
    const DriverApi& driver_;
    CUmemLocation location_{};
    std::size_t granularity_ = 0;
    std::size_t mapped_bytes_ = 0;
    CUmemGenericAllocationHandle handle_ = 0;
    bool has_handle_ = false;
    CUdeviceptr address_ = 0;
    bool mapped_ = false;
};

}  // namespace

std::unique_ptr<HostBuffer> allocate_vmm_host_buffer(ApiVariant api, std::size_t bytes) {
    return std::make_unique<VmmHostBuffer>(api, bytes);
}

}  // namespace pinbench::cuda
