// Context, device buffers and the GPU-use steps of the CUDA core.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstring>
#include <vector>

#include "cuda/kernels.hpp"
#include "pinbench/cuda/cuda_check.hpp"
#include "pinbench/cuda/cuda_handles.hpp"
#include "pinbench/device.hpp"
#include "pinbench/transfers.hpp"

namespace pinbench {

DeviceContext::DeviceContext(int device) : device_(device) {
    PINBENCH_CUDA(cudaSetDevice(device));
    PINBENCH_CUDA(cudaFree(nullptr));  // creates the primary context
    // Launch every kernel of the core once so lazy module loading happens here, not inside
    // a measured step.
    PINBENCH_CUDA(cuda::launch_warmup(nullptr));
    unsigned long long* sum = nullptr;
    PINBENCH_CUDA(cudaMalloc(reinterpret_cast<void**>(&sum), sizeof *sum));
    PINBENCH_CUDA(cudaMemset(sum, 0, sizeof *sum));
    const cudaError_t launched = cuda::launch_checksum(sum, sizeof *sum, sum, nullptr);
    const cudaError_t synced = cudaDeviceSynchronize();
    cudaFree(sum);
    PINBENCH_CUDA(launched);
    PINBENCH_CUDA(synced);
}

// The primary context stays alive until the process exits: runs are isolated by process,
// and resetting here would also free memory a caller may still hold.
void DeviceContext::synchronize() const {
    PINBENCH_CUDA(cudaSetDevice(device_));
    PINBENCH_CUDA(cudaDeviceSynchronize());
}

MemInfo DeviceContext::mem_info() const {
    PINBENCH_CUDA(cudaSetDevice(device_));
    std::size_t free = 0, total = 0;
    PINBENCH_CUDA(cudaMemGetInfo(&free, &total));
    return {free, total};
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : size_(bytes) {
    PINBENCH_CUDA(cudaMalloc(&ptr_, bytes));
    const cudaError_t set = cudaMemset(ptr_, 0, bytes);
    const cudaError_t synced = set == cudaSuccess ? cudaDeviceSynchronize() : set;
    if (synced != cudaSuccess) {
        cudaFree(ptr_);
        cuda::check(synced, "cudaMemset");
    }
}

DeviceBuffer::~DeviceBuffer() { cudaFree(ptr_); }

GpuUseWorkspace::GpuUseWorkspace(std::size_t copy_chunk)
    : copy_target_(copy_chunk), result_(sizeof(unsigned long long)) {}

namespace {

// H2D copies of [src, src + bytes) in target-sized chunks on the legacy stream; not synchronized.
void enqueue_copies_to_device(const std::byte* src, std::size_t bytes, const DeviceBuffer& target) {
    const std::size_t chunk = target.size();
    for (std::size_t off = 0; off < bytes; off += chunk) {
        const std::size_t n = std::min(chunk, bytes - off);
        PINBENCH_CUDA(cudaMemcpyAsync(target.data(), src + off, n, cudaMemcpyHostToDevice, nullptr));
    }
}

void copy_to_device_chunked(const std::byte* src, std::size_t bytes, const DeviceBuffer& target) {
    enqueue_copies_to_device(src, bytes, target);
    PINBENCH_CUDA(cudaStreamSynchronize(nullptr));
}

std::uint64_t device_checksum(const void* data, std::size_t bytes, const GpuUseWorkspace& ws) {
    auto* sum = static_cast<unsigned long long*>(ws.result().data());
    PINBENCH_CUDA(cudaMemsetAsync(sum, 0, sizeof *sum, nullptr));
    PINBENCH_CUDA(cuda::launch_checksum(data, bytes, sum, nullptr));
    unsigned long long host = 0;
    PINBENCH_CUDA(cudaMemcpyAsync(&host, sum, sizeof host, cudaMemcpyDeviceToHost, nullptr));
    PINBENCH_CUDA(cudaStreamSynchronize(nullptr));
    return host;
}

}  // namespace

double timed_h2d_copy_ms(const void* data, std::size_t bytes, const GpuUseWorkspace& ws) {
    cuda::Event start(true), stop(true);
    PINBENCH_CUDA(cudaEventRecord(start.get(), nullptr));
    enqueue_copies_to_device(static_cast<const std::byte*>(data), bytes, ws.copy_target());
    PINBENCH_CUDA(cudaEventRecord(stop.get(), nullptr));
    PINBENCH_CUDA(cudaEventSynchronize(stop.get()));
    float ms = 0;
    PINBENCH_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return ms;
}

void first_gpu_use(const HostBuffer& buffer, const GpuUseWorkspace& ws) {
    copy_to_device_chunked(buffer.data(), buffer.size(), ws.copy_target());
    if (buffer.device_pointer() != nullptr) (void)device_checksum(buffer.device_pointer(), buffer.size(), ws);
}

std::string verify_round_trip(const HostBuffer& buffer, const GpuUseWorkspace& ws, std::uint32_t seed) {
    // xorshift pattern: cheap, and a shifted or truncated copy cannot match by accident.
    std::uint32_t state = seed | 1u;
    auto* bytes = reinterpret_cast<unsigned char*>(buffer.data());
    for (std::size_t i = 0; i < buffer.size(); ++i) {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        bytes[i] = static_cast<unsigned char>(state);
    }
    const std::size_t chunk = ws.copy_target().size();
    std::vector<unsigned char> back(std::min(chunk, buffer.size()));
    for (std::size_t off = 0; off < buffer.size(); off += chunk) {
        const std::size_t n = std::min(chunk, buffer.size() - off);
        PINBENCH_CUDA(cudaMemcpy(ws.copy_target().data(), bytes + off, n, cudaMemcpyHostToDevice));
        PINBENCH_CUDA(cudaMemcpy(back.data(), ws.copy_target().data(), n, cudaMemcpyDeviceToHost));
        if (std::memcmp(back.data(), bytes + off, n) != 0) {
            return "host -> device -> host copy differs in the chunk at offset " + std::to_string(off);
        }
    }
    const std::uint64_t expected = cuda::host_checksum(bytes, buffer.size());
    if (buffer.device_pointer() != nullptr) {
        const std::uint64_t got = device_checksum(buffer.device_pointer(), buffer.size(), ws);
        if (got != expected) {
            return "kernel reading through the device pointer summed " + std::to_string(got) + ", host " +
                   std::to_string(expected);
        }
    }
    return {};
}

int cuda_device_count(std::string* why) {
    int n = 0;
    const cudaError_t status = cudaGetDeviceCount(&n);
    if (status != cudaSuccess) {
        (void)cudaGetLastError();
        if (why) {
            *why = std::string("cudaGetDeviceCount: ") + cudaGetErrorName(status) + " (" +
                   cudaGetErrorString(status) + ")";
        }
        return 0;
    }
    if (n == 0 && why) *why = "cudaGetDeviceCount returned 0 devices";
    return n;
}

}  // namespace pinbench
