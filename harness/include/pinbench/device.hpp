// CUDA core, device side: context, device buffers, first GPU use and data checks.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "pinbench/host_buffer.hpp"
#include "pinbench/probe.hpp"

namespace pinbench {

struct MemInfo {
    std::uint64_t free = 0;
    std::uint64_t total = 0;
};

// Makes `device` current, creates its primary context and runs a fixed warm-up kernel, so
// that later snapshots do not include lazy module loading. Synchronizes before returning.
class DeviceContext {
public:
    explicit DeviceContext(int device);
    ~DeviceContext();
    DeviceContext(const DeviceContext&) = delete;
    DeviceContext& operator=(const DeviceContext&) = delete;

    int device() const { return device_; }
    void synchronize() const;
    MemInfo mem_info() const;  // cudaMemGetInfo for this device (makes it current)

private:
    int device_;
};

// cudaMalloc'd memory, touched (cudaMemset) so the driver backs every page.
class DeviceBuffer {
public:
    explicit DeviceBuffer(std::size_t bytes);  // on the current device; throws CudaError
    ~DeviceBuffer();
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    void* data() const { return ptr_; }
    std::size_t size() const { return size_; }

private:
    void* ptr_ = nullptr;
    std::size_t size_ = 0;
};

// "First GPU use" of a host buffer: one H2D copy from it (into a scratch device buffer of at
// most `chunk` bytes, reused), and for mapped memory also a kernel that reads every byte
// through the device pointer. WDDM may build mappings only at the first submission.
void first_gpu_use(const HostBuffer& buffer, std::size_t chunk = std::size_t{64} << 20);

// Fills the buffer with a pattern derived from `seed`, moves it host -> device -> host
// (through a device buffer; for mapped memory also through a kernel reading the device
// pointer) and returns true when every byte came back unchanged.
bool verify_round_trip(const HostBuffer& buffer, std::uint32_t seed);

// Number of CUDA devices the runtime sees (0 when no driver/GPU; never throws).
int cuda_device_count(std::string* why);

// In-process cudaMemGetInfo probe for the current device: keys cuda.free, cuda.total.
std::unique_ptr<Probe> make_cuda_meminfo_probe(int device);

}  // namespace pinbench
