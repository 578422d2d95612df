// CUDA core, internal: the host-located allocators that need more than one call
// (host_vmm.cpp, host_pool.cpp), which allocate_host_buffer (host_buffers.cpp) dispatches to,
// and the ApiFlag -> cudaHostRegister flag mapping that registration elsewhere shares.
#pragma once

#include <cstddef>
#include <memory>

#include "pinbench/cuda/host_buffer.hpp"

namespace pinbench::cuda {

// cuMemCreate at api.location (host or host_numa), reserved, mapped and made read/write for
// the current device and the CPU. Throws UnsupportedError when the driver cannot (the reason
// names the device attribute), CudaError when a call fails.
std::unique_ptr<HostBuffer> allocate_vmm_host_buffer(ApiVariant api, std::size_t bytes);

// A pool created at api.location (host or host_numa), made read/write for the current device,
// then cudaMallocFromPoolAsync + stream synchronize. Same errors as above.
std::unique_ptr<HostBuffer> allocate_pool_host_buffer(ApiVariant api, std::size_t bytes);

// cudaHostRegister flags for ApiFlag bits (portable, mapped); defined in host_buffers.cpp.
unsigned host_register_flags(unsigned flags);

}  // namespace pinbench::cuda
