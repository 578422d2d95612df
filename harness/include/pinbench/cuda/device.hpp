// CUDA core, device side: context, device buffers, first GPU use and data checks.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

#include "pinbench/cuda/host_buffer.hpp"
#include "pinbench/probes/device_map.hpp"
#include "pinbench/probes/environment_facts.hpp"
#include "pinbench/probes/probe.hpp"

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
    ~DeviceContext() = default;
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

// Device memory a GPU-use step needs, allocated up front (before the baseline snapshot) so
// that the measured cost never includes it: a copy target and a small result word.
class GpuUseWorkspace {
public:
    explicit GpuUseWorkspace(std::size_t copy_chunk = std::size_t{64} << 20);
    const DeviceBuffer& copy_target() const { return copy_target_; }
    const DeviceBuffer& result() const { return result_; }

private:
    DeviceBuffer copy_target_;
    DeviceBuffer result_;
};

// "First GPU use" of a host buffer: H2D copies of the whole buffer (chunked through the
// workspace), and for memory with a device pointer also a kernel that reads every byte
// through it. WDDM may build mappings only at the first submission. Synchronizes.
void first_gpu_use(const HostBuffer& buffer, const GpuUseWorkspace& ws);

// Fills the buffer with a pattern derived from `seed`, copies it to the device and back into
// separate host memory, compares every byte, and for memory with a device pointer compares a
// checksum computed by a kernel reading through that pointer with the host's. Returns an
// empty string when everything matched, else what differed.
std::string verify_round_trip(const HostBuffer& buffer, const GpuUseWorkspace& ws, std::uint32_t seed);

// Number of CUDA devices the runtime sees (0 when no driver/GPU; never throws).
int cuda_device_count(std::string* why);

// CUDA's facts for the environment record: driver and runtime versions, CUDA_MODULE_LOADING;
// for a device its name, compute capability, UUID, LUID (Windows), TCC flag, unified
// addressing, PCI location and the context's stack limit. Each a value or why not.
CudaFacts cuda_facts();
CudaDeviceFacts cuda_device_facts(int device);

// The device's UUID and PCI bus id, for matching it with its NVML index (pinbench/probes/device_map.hpp).
DeviceIdentity device_identity(int device);

// The device's LUID (Windows WDDM/MCDM); nullopt elsewhere.
std::optional<std::array<std::uint8_t, 8>> device_luid(int device);

// In-process cudaMemGetInfo probe for the current device: keys cuda.free, cuda.total.
std::unique_ptr<Probe> make_cuda_meminfo_probe(int device);

}  // namespace pinbench
