// Host-located stream-ordered memory: a pool created at a host location, made read/write for
// the current device, one cudaMallocFromPoolAsync per buffer, freed with cudaFreeAsync.
#include <cuda_runtime_api.h>

#include <string>

#include "cuda/host_allocators.hpp"
#include "pinbench/cuda/cuda_check.hpp"
#include "pinbench/cuda/cuda_handles.hpp"
#include "pinbench/errors.hpp"
#include "platform/huge_pages.hpp"

namespace pinbench::cuda {
namespace {

// cudaDevAttrHostMemoryPoolsSupported (144) is in the CUDA 13.0 headers, not in 12.x; users
// build with 12.x, so the value is spelled here. Drivers that do not know it answer
// cudaErrorInvalidValue, which reads as "not supported".
constexpr auto kHostMemoryPoolsSupported = static_cast<cudaDeviceAttr>(144);

int attribute(cudaDeviceAttr which, int device, std::string* error) {
    int value = 0;
    const cudaError_t status = cudaDeviceGetAttribute(&value, which, device);
    if (status == cudaSuccess) return value;
    (void)cudaGetLastError();
    *error = cudaGetErrorName(status);
    return -1;
}

std::string value_text(int value, const std::string& error) {
    return value < 0 ? "unknown to the driver: " + error : std::to_string(value);
}

// The pool's location after checking that the device supports it; UnsupportedError else.
cudaMemLocation pool_location(int device, HostLocation where) {
    std::string error;
    const int pools = attribute(cudaDevAttrMemoryPoolsSupported, device, &error);
    if (pools != 1) {
        throw UnsupportedError(
            "cudaMallocFromPoolAsync: memory pools not supported on this device "
            "(cudaDevAttrMemoryPoolsSupported = " +
            value_text(pools, error) + ")");
    }
    cudaMemLocation location{};
    if (where == HostLocation::host) {
        const int supported = attribute(kHostMemoryPoolsSupported, device, &error);
        if (supported != 1) {
            throw UnsupportedError(
                "cudaMemPoolCreate with a host location: not supported by this driver "
                "(cudaDevAttrHostMemoryPoolsSupported = " +
                value_text(supported, error) + ")");
        }
        location.type = cudaMemLocationTypeHost;
        location.id = 0;  // ignored for Host
        return location;
    }
    const int supported = attribute(cudaDevAttrHostNumaMemoryPoolsSupported, device, &error);
    if (supported != 1) {
        throw UnsupportedError(
            "cudaMemPoolCreate with a host NUMA location: not supported by this driver "
            "(cudaDevAttrHostNumaMemoryPoolsSupported = " +
            value_text(supported, error) + ")");
    }
    const int numa = attribute(cudaDevAttrHostNumaId, device, &error);
    location.type = cudaMemLocationTypeHostNuma;
    location.id = numa < 0 ? 0 : numa;
    return location;
}

// Owns a cudaMemPool_t.
class MemPool {
public:
    explicit MemPool(const cudaMemPoolProps& props, HostLocation where) {
        const cudaError_t status = cudaMemPoolCreate(&pool_, &props);
        if (status == cudaErrorNotSupported) {
            (void)cudaGetLastError();
            throw UnsupportedError("cudaMemPoolCreate at " + std::string(to_string(where)) +
                                   " failed with cudaErrorNotSupported although the device attribute says "
                                   "it is supported");
        }
        PINBENCH_CUDA(status);
    }
    ~MemPool() {
        if (pool_ != nullptr) cudaMemPoolDestroy(pool_);
    }
    MemPool(const MemPool&) = delete;
    MemPool& operator=(const MemPool&) = delete;
    cudaMemPool_t get() const { return pool_; }

private:
    cudaMemPool_t pool_ = nullptr;
};

cudaMemPoolProps pool_props(cudaMemLocation location) {
    cudaMemPoolProps props{};
    props.allocType = cudaMemAllocationTypePinned;
    props.handleTypes = cudaMemHandleTypeNone;  // Host pools are not IPC capable
    props.location = location;
    return props;
}

class PoolHostBuffer final : public HostBuffer {
public:
    PoolHostBuffer(ApiVariant api, std::size_t bytes, int device, cudaMemLocation location)
        : api_(api), size_(bytes), location_(location), pool_(pool_props(location), api.location) {
        // Host pools are accessible from the CPU by default; the device needs explicit access.
        cudaMemAccessDesc access{};
        access.location.type = cudaMemLocationTypeDevice;
        access.location.id = device;
        access.flags = cudaMemAccessFlagsProtReadWrite;
        PINBENCH_CUDA(cudaMemPoolSetAccess(pool_.get(), &access, 1));
        void* p = nullptr;
        PINBENCH_CUDA(cudaMallocFromPoolAsync(&p, bytes == 0 ? 1 : bytes, pool_.get(), stream_.get()));
        ptr_ = static_cast<std::byte*>(p);
        try {
            PINBENCH_CUDA(cudaStreamSynchronize(stream_.get()));
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
        nlohmann::json record = platform::verified_backing(ptr_, size_, PageKind::standard);
        record["location"] = std::string(to_string(api_.location));
        if (location_.type == cudaMemLocationTypeHostNuma) record["numa_node"] = location_.id;
        std::uint64_t reserved = 0;
        if (cudaMemPoolGetAttribute(pool_.get(), cudaMemPoolAttrReservedMemCurrent, &reserved) ==
            cudaSuccess) {
            record["pool_reserved_bytes"] = reserved;
        } else {
            (void)cudaGetLastError();
        }
        return record;
    }

private:
    void release() noexcept {
        if (ptr_ == nullptr) return;
        cudaFreeAsync(ptr_, stream_.get());
        cudaStreamSynchronize(stream_.get());
        ptr_ = nullptr;
    }

    ApiVariant api_;
    std::size_t size_;
    cudaMemLocation location_;
    MemPool pool_;   // destroyed last: after the buffer is freed
    Stream stream_;  // then the stream
    std::byte* ptr_ = nullptr;
};

}  // namespace

std::unique_ptr<HostBuffer> allocate_pool_host_buffer(ApiVariant api, std::size_t bytes) {
    int device = 0;
    PINBENCH_CUDA(cudaGetDevice(&device));
    const cudaMemLocation location = pool_location(device, api.location);
    return std::make_unique<PoolHostBuffer>(api, bytes, device, location);
}

}  // namespace pinbench::cuda
