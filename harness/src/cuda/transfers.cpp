// Registration around transfers and peer access (CUDA core); timed_h2d_copy_ms lives beside the
// other chunked copies in device_context.cpp.
#include "pinbench/transfers.hpp"

#include <cuda_runtime_api.h>

#include <string>
#include <utility>

#include "cuda/host_allocators.hpp"
#include "pinbench/cuda/cuda_check.hpp"
#include "pinbench/cuda/cuda_handles.hpp"
#include "pinbench/errors.hpp"

namespace pinbench {

HostRegistration::HostRegistration(void* data, std::size_t bytes, unsigned flags) : data_(data) {
    PINBENCH_CUDA(cudaHostRegister(data, bytes, cuda::host_register_flags(flags)));
}

HostRegistration::~HostRegistration() {
    if (data_ != nullptr) cudaHostUnregister(data_);
}

void HostRegistration::release() {
    if (data_ == nullptr) return;
    PINBENCH_CUDA(cudaHostUnregister(std::exchange(data_, nullptr)));
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
