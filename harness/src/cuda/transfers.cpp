// Registration around transfers, timed copies and peer access (CUDA core).
#include "pinbench/transfers.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <string>

#include "cuda/cuda_check.hpp"
#include "cuda/cuda_handles.hpp"
#include "pinbench/errors.hpp"

namespace pinbench {

HostRegistration::HostRegistration(void* data, std::size_t bytes, unsigned flags) : data_(data) {
    unsigned f = cudaHostRegisterDefault;
    if (flags & flag_portable) f |= cudaHostRegisterPortable;
    if (flags & flag_mapped) f |= cudaHostRegisterMapped;
    PINBENCH_CUDA(cudaHostRegister(data, bytes, f));
}

HostRegistration::~HostRegistration() { cudaHostUnregister(data_); }

double timed_h2d_copy_ms(const void* data, std::size_t bytes, const GpuUseWorkspace& ws) {
    cuda::Event start(true), stop(true);
    const auto* src = static_cast<const std::byte*>(data);
    const std::size_t chunk = ws.copy_target().size();
    PINBENCH_CUDA(cudaEventRecord(start.get(), nullptr));
    for (std::size_t off = 0; off < bytes; off += chunk) {
        const std::size_t n = std::min(chunk, bytes - off);
        PINBENCH_CUDA(cudaMemcpyAsync(ws.copy_target().data(), src + off, n, cudaMemcpyHostToDevice, nullptr));
    }
    PINBENCH_CUDA(cudaEventRecord(stop.get(), nullptr));
    PINBENCH_CUDA(cudaEventSynchronize(stop.get()));
    float ms = 0;
    PINBENCH_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
    return ms;
}

void enable_peer_access(const std::vector<int>& devices) {
    for (int a : devices) {
        for (int b : devices) {
            if (a == b) continue;
            int can = 0;
            PINBENCH_CUDA(cudaDeviceCanAccessPeer(&can, a, b));
            if (can == 0) {
                throw UnsupportedError("peer access from device " + std::to_string(a) + " to " +
                                       std::to_string(b) + " is not supported (cudaDeviceCanAccessPeer = 0)");
            }
            cuda::DeviceGuard guard(a);
            const cudaError_t e = cudaDeviceEnablePeerAccess(b, 0);
            if (e == cudaErrorPeerAccessAlreadyEnabled) {
                (void)cudaGetLastError();
            } else {
                PINBENCH_CUDA(e);
            }
        }
    }
}

}  // namespace pinbench
