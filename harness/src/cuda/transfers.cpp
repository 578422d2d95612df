// Registration around transfers and peer access (CUDA core); timed_h2d_copy_ms lives beside the
// other chunked copies in device_context.cpp.
#include "pinbench/cuda/transfers.hpp"

#include <string>
#include <utility>

#include "cuda/driver_api.hpp"
#include "cuda/driver_handles.hpp"
#include "cuda/host_allocators.hpp"
#include "pinbench/vocabulary/errors.hpp"

namespace pinbench {

HostRegistration::HostRegistration(void* data, std::size_t bytes, unsigned flags) : data_(data) {
    const cuda::DriverApi& d = cuda::driver();
    (void)cuda::current_device();
    d.call(d.mem_host_register, data, bytes, cuda::host_register_flags(flags));
}

HostRegistration::~HostRegistration() {
    if (data_ != nullptr) cuda::call_quietly(&cuda::DriverApi::mem_host_unregister, data_);
}

void HostRegistration::release() {
    if (data_ == nullptr) return;
    const cuda::DriverApi& d = cuda::driver();
    d.call(d.mem_host_unregister, std::exchange(data_, nullptr));
}

// cudaDeviceCanAccessPeer + cudaDeviceEnablePeerAccess: cuDeviceCanAccessPeer, then
// cuCtxEnablePeerAccess from a's primary context to b's.
void enable_peer_access(const std::vector<int>& devices) {
    const cuda::DriverApi& d = cuda::driver();
    for (int a : devices) {
        for (int b : devices) {
            if (a == b) continue;
            CUdevice device_a = 0, device_b = 0;
            d.call(d.device_get, &device_a, a);
            d.call(d.device_get, &device_b, b);
            int can = 0;
            d.call(d.device_can_access_peer, &can, device_a, device_b);
            if (can == 0) {
                throw UnsupportedError("peer access from device " + std::to_string(a) + " to " +
                                       std::to_string(b) + " is not supported (cuDeviceCanAccessPeer = 0)");
            }
            CUcontext peer = nullptr;
            {
                const cuda::DeviceGuard guard(b);
                d.call(d.ctx_get_current, &peer);
            }
            const cuda::DeviceGuard guard(a);
            const CUresult e = d.status(d.ctx_enable_peer_access, peer, 0u);
            if (e != CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) d.check(e, d.ctx_enable_peer_access.name);
        }
    }
}

}  // namespace pinbench
