// Context, device buffers and the GPU-use steps of the CUDA core.
#include <algorithm>
#include <cstring>
#include <vector>

#include "cuda/driver_api.hpp"
#include "cuda/driver_handles.hpp"
#include "cuda/kernels.hpp"
#include "pinbench/cuda/device.hpp"
#include "pinbench/cuda/transfers.hpp"

namespace pinbench {
namespace {

CUdeviceptr device_address(const void* p) { return reinterpret_cast<CUdeviceptr>(p); }

}  // namespace

DeviceContext::DeviceContext(int device) : device_(device) {
    const cuda::DriverApi& d = cuda::driver();
    cuda::make_current(device);  // the primary context, as cudaSetDevice + cudaFree(0)
    // Load the kernels and launch each once, so module loading happens here, not inside a
    // measured step.
    cuda::load_kernels();
    cuda::launch_warmup(nullptr);
    const DeviceBuffer sum(sizeof(unsigned long long));
    cuda::launch_checksum(sum.data(), sum.size(), sum.data(), nullptr);
    d.call(d.ctx_synchronize);
}

// The primary context stays alive until the process exits: runs are isolated by process,
// and resetting here would also free memory a caller may still hold.
void DeviceContext::synchronize() const {
    const cuda::DriverApi& d = cuda::driver();
    cuda::make_current(device_);
    d.call(d.ctx_synchronize);
}

MemInfo DeviceContext::mem_info() const {
    const cuda::DriverApi& d = cuda::driver();
    cuda::make_current(device_);
    std::size_t free = 0, total = 0;
    d.call(d.mem_get_info, &free, &total);
    return {free, total};
}

DeviceBuffer::DeviceBuffer(std::size_t bytes) : size_(bytes) {
    const cuda::DriverApi& d = cuda::driver();
    (void)cuda::current_device();
    CUdeviceptr p = 0;
    d.call(d.mem_alloc, &p, bytes);
    ptr_ = reinterpret_cast<void*>(p);  // NOLINT(performance-no-int-to-ptr)
    CUresult status = d.status(d.memset_d8, p, static_cast<unsigned char>(0), bytes);
    if (status == CUDA_SUCCESS) status = d.status(d.ctx_synchronize);
    if (status != CUDA_SUCCESS) {
        (void)d.status(d.mem_free, p);
        d.check(status, d.memset_d8.name);
    }
}

DeviceBuffer::~DeviceBuffer() { cuda::call_quietly(&cuda::DriverApi::mem_free, device_address(ptr_)); }

GpuUseWorkspace::GpuUseWorkspace(std::size_t copy_chunk)
    : copy_target_(copy_chunk), result_(sizeof(unsigned long long)) {}

namespace {

// H2D copies of [src, src + bytes) in target-sized chunks on the legacy stream; not synchronized.
void enqueue_copies_to_device(const std::byte* src, std::size_t bytes, const DeviceBuffer& target) {
    const cuda::DriverApi& d = cuda::driver();
    const std::size_t chunk = target.size();
    for (std::size_t off = 0; off < bytes; off += chunk) {
        const std::size_t n = std::min(chunk, bytes - off);
        d.call(d.memcpy_htod_async, device_address(target.data()), static_cast<const void*>(src + off), n,
               CUstream{nullptr});
    }
}

void copy_to_device_chunked(const std::byte* src, std::size_t bytes, const DeviceBuffer& target) {
    const cuda::DriverApi& d = cuda::driver();
    enqueue_copies_to_device(src, bytes, target);
    d.call(d.stream_synchronize, CUstream{nullptr});
}

std::uint64_t device_checksum(const void* data, std::size_t bytes, const GpuUseWorkspace& ws) {
    const cuda::DriverApi& d = cuda::driver();
    void* sum = ws.result().data();
    d.call(d.memset_d8_async, device_address(sum), static_cast<unsigned char>(0), sizeof(unsigned long long),
           CUstream{nullptr});
    cuda::launch_checksum(data, bytes, sum, nullptr);
    unsigned long long host = 0;
    d.call(d.memcpy_dtoh_async, static_cast<void*>(&host), device_address(sum), sizeof host,
           CUstream{nullptr});
    d.call(d.stream_synchronize, CUstream{nullptr});
    return host;
}

}  // namespace

double timed_h2d_copy_ms(const void* data, std::size_t bytes, const GpuUseWorkspace& ws) {
    const cuda::DriverApi& d = cuda::driver();
    cuda::Event start(true), stop(true);
    d.call(d.event_record, start.get(), CUstream{nullptr});
    enqueue_copies_to_device(static_cast<const std::byte*>(data), bytes, ws.copy_target());
    d.call(d.event_record, stop.get(), CUstream{nullptr});
    d.call(d.event_synchronize, stop.get());
    float ms = 0;
    d.call(d.event_elapsed_time, &ms, start.get(), stop.get());
    return ms;
}

void first_gpu_use(const HostBuffer& buffer, const GpuUseWorkspace& ws) {
    copy_to_device_chunked(buffer.data(), buffer.size(), ws.copy_target());
    if (buffer.device_pointer() != nullptr) (void)device_checksum(buffer.device_pointer(), buffer.size(), ws);
}

std::string verify_round_trip(const HostBuffer& buffer, const GpuUseWorkspace& ws, std::uint32_t seed) {
    const cuda::DriverApi& d = cuda::driver();
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
    const CUdeviceptr target = device_address(ws.copy_target().data());
    std::vector<unsigned char> back(std::min(chunk, buffer.size()));
    for (std::size_t off = 0; off < buffer.size(); off += chunk) {
        const std::size_t n = std::min(chunk, buffer.size() - off);
        d.call(d.memcpy_htod, target, static_cast<const void*>(bytes + off), n);
        d.call(d.memcpy_dtoh, static_cast<void*>(back.data()), target, n);
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
    const cuda::DriverApi* d = cuda::try_driver(why);
    if (d == nullptr) return 0;
    int n = 0;
    const CUresult status = d->status(d->device_get_count, &n);
    if (status != CUDA_SUCCESS) {
        if (why) *why = "cuDeviceGetCount: " + d->error_name(status) + " (" + d->error_text(status) + ")";
        return 0;
    }
    if (n == 0 && why) *why = "cuDeviceGetCount returned 0 devices";
    return n;
}

}  // namespace pinbench
