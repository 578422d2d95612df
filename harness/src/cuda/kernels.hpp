// Launchers of the CUDA core's kernels (kernels.cu). Host code calls these; only kernels.cu
// is compiled by nvcc, so every other core source can be checked by a host compiler.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace pinbench::cuda {

// Does nothing on the GPU; launching it loads the module (lazy loading would otherwise load
// it at the first measured launch).
cudaError_t launch_warmup(cudaStream_t stream);

// Adds every 32-bit little-endian word of [data, data + bytes) (and the tail bytes, each as
// a value) into *sum. `data` may be a device pointer or a mapped host pointer.
cudaError_t launch_checksum(const void* data, std::size_t bytes, unsigned long long* sum,
                            cudaStream_t stream);

// The same sum on the host, for comparison.
std::uint64_t host_checksum(const void* data, std::size_t bytes);

}  // namespace pinbench::cuda
