// Host-located stream-ordered memory (the API variant cudaMallocFromPoolAsync:<location>): a pool
// created at a host location (cuMemPoolCreate), made read/write for the current device
// (cuMemPoolSetAccess), one cuMemAllocFromPoolAsync per buffer, freed with cuMemFreeAsync.
#include <string>

#include "cuda/driver_api.hpp"
#include "cuda/driver_handles.hpp"
#include "cuda/host_allocators.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "platform/huge_pages.hpp"

namespace pinbench::cuda {
namespace {

// CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED (144) is in the CUDA 13.0 headers, not in
// 12.x; users build with 12.x headers, so the value is spelled here. Drivers that do not know it
// answer CUDA_ERROR_INVALID_VALUE, which reads as "not supported".
constexpr auto kHostMemoryPoolsSupported = static_cast<CUdevice_attribute>(144);

int attribute(CUdevice_attribute which, CUdevice device, std::string* error) {
    const DriverApi& d = driver();
    int value = 0;
    const CUresult status = d.status(d.device_get_attribute, &value, which, device);
    if (status == CUDA_SUCCESS) return value;
    *error = d.error_name(status);
    return -1;
}

std::string value_text(int value, const std::string& error) {
    return value < 0 ? "unknown to the driver: " + error : std::to_string(value);
}

// The pool's location after checking that the device supports it; UnsupportedError else.
CUmemLocation pool_location(CUdevice device, HostLocation where) {
    std::string error;
    const int pools = attribute(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device, &error);
    if (pools != 1) {
        throw UnsupportedError(
            "cuMemAllocFromPoolAsync: memory pools not supported on this device "
            "(CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED = " +
            value_text(pools, error) + ")");
    }
    CUmemLocation location{};
    if (where == HostLocation::host) {
        const int supported = attribute(kHostMemoryPoolsSupported, device, &error);
        if (supported != 1) {
            throw UnsupportedError(
                "cuMemPoolCreate with a host location: not supported by this driver "
                "(CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED = " +
                value_text(supported, error) + ")");
        }
        location.type = CU_MEM_LOCATION_TYPE_HOST;
        location.id = 0;  // ignored for HOST
        return location;
    }
    const int supported = attribute(CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED, device, &error);
    if (supported != 1) {
        throw UnsupportedError(
            "cuMemPoolCreate with a host NUMA location: not supported by this driver "
            "(CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED = " +
            value_text(supported, error) + ")");
    }
    const int numa = attribute(CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, device, &error);
    location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
    location.id = numa < 0 ? 0 : numa;
    return location;
}

// Owns a CUmemoryPool.
class MemPool {
public:
    explicit MemPool(const CUmemPoolProps& props, HostLocation where) {
        const DriverApi& d = driver();
        const CUresult status = d.status(d.mem_pool_create, &pool_, &props);
        if (status == CUDA_ERROR_NOT_SUPPORTED) {
            throw UnsupportedError("cuMemPoolCreate at " + std::string(to_string(where)) +
                                   " failed with CUDA_ERROR_NOT_SUPPORTED although the device attribute says "
                                   "it is supported");
        }
        d.check(status, d.mem_pool_create.name);
    }
    ~MemPool() {
        if (pool_ != nullptr) call_quietly(&DriverApi::mem_pool_destroy, pool_);
    }
    MemPool(const MemPool&) = delete;
    MemPool& operator=(const MemPool&) = delete;
    CUmemoryPool get() const { return pool_; }

private:
    CUmemoryPool pool_ = nullptr;
};

CUmemPoolProps pool_props(CUmemLocation location) {
    CUmemPoolProps props{};
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;  // host pools are not IPC capable
    props.location = location;
    return props;
}

class PoolHostBuffer final : public HostBuffer {
public:
    PoolHostBuffer(ApiVariant api, std::size_t bytes, int device, CUmemLocation location)
        : api_(api), size_(bytes), location_(location), pool_(pool_props(location), api.location) {
        const DriverApi& d = driver();
        // Host pools are accessible from the CPU by default; the device needs explicit access.
        CUmemAccessDesc access{};
        access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = device;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        d.call(d.mem_pool_set_access, pool_.get(), static_cast<const CUmemAccessDesc*>(&access),
               std::size_t{1});
        CUdeviceptr p = 0;
        d.call(d.mem_alloc_from_pool_async, &p, bytes == 0 ? std::size_t{1} : bytes, pool_.get(),
               stream_.get());
        ptr_ = reinterpret_cast<std::byte*>(p);  // NOLINT(performance-no-int-to-ptr)
        try {
            d.call(d.stream_synchronize, stream_.get());
        } catch (...) {
            release();
            throw;
        }
    }
    ~PoolHostBuffer() override { release(); }

    ApiVariant api() const override { return api_; }
    std::byte* data() const override { return ptr_; }
    std::size_t size() const override { return size_; }
    void* device_pointer() const override { return ptr_; }
    nlohmann::json backing() const override {
        const DriverApi& d = driver();
        nlohmann::json record = platform::verified_backing(ptr_, size_, PageKind::standard);
        record["location"] = std::string(to_string(api_.location));
        if (location_.type == CU_MEM_LOCATION_TYPE_HOST_NUMA) record["numa_node"] = location_.id;
        cuuint64_t reserved = 0;
        if (d.status(d.mem_pool_get_attribute, pool_.get(), CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT,
                     static_cast<void*>(&reserved)) == CUDA_SUCCESS) {
            record["pool_reserved_bytes"] = static_cast<std::uint64_t>(reserved);
        }
        return record;
    }

private:
    void release() noexcept {
        if (ptr_ == nullptr) return;
        call_quietly(&DriverApi::mem_free_async, reinterpret_cast<CUdeviceptr>(ptr_), stream_.get());
        call_quietly(&DriverApi::stream_synchronize, stream_.get());
        ptr_ = nullptr;
    }

    ApiVariant api_;
    std::size_t size_;
    CUmemLocation location_;
    MemPool pool_;   // destroyed last: after the buffer is freed
    Stream stream_;  // then the stream
    std::byte* ptr_ = nullptr;
};

}  // namespace

std::unique_ptr<HostBuffer> allocate_pool_host_buffer(ApiVariant api, std::size_t bytes) {
    const int ordinal = current_device();
    const DriverApi& d = driver();
    CUdevice device = 0;
    d.call(d.device_get, &device, ordinal);
    const CUmemLocation location = pool_location(device, api.location);
    return std::make_unique<PoolHostBuffer>(api, bytes, ordinal, location);
}

}  // namespace pinbench::cuda
