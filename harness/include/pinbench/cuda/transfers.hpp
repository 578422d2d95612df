// CUDA core: registering ordinary memory around transfers, timed copies and peer access, for
// the register_window, shared and multi_gpu kinds (docs/kinds.md).
#pragma once

#include <cstddef>
#include <vector>

#include "pinbench/cuda/device.hpp"
#include "pinbench/vocabulary/api_variant.hpp"

namespace pinbench {

// cudaHostRegister over memory this process does not own through CUDA (an OS shared-memory
// view, a page-aligned buffer, pages from the OS directly); cudaHostUnregister in the
// destructor unless release() already did. `flags` are ApiFlag bits (portable, mapped).
class HostRegistration {
public:
    HostRegistration(void* data, std::size_t bytes, unsigned flags);  // throws CudaError
    ~HostRegistration();
    HostRegistration(const HostRegistration&) = delete;
    HostRegistration& operator=(const HostRegistration&) = delete;

    // cudaHostUnregister now, so that unregistering can be timed on its own. Throws CudaError.
    void release();

private:
    void* data_;
};

// One host-to-device copy of [data, data + bytes) through the workspace (chunked), timed
// with CUDA events; milliseconds. Synchronizes.
double timed_h2d_copy_ms(const void* data, std::size_t bytes, const GpuUseWorkspace& ws);

// Enables peer access between every ordered pair of `devices`. Throws UnsupportedError when
// a pair cannot access each other (cudaDeviceCanAccessPeer = 0).
void enable_peer_access(const std::vector<int>& devices);

}  // namespace pinbench
