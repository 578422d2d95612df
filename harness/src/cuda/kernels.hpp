// The CUDA core's kernels (kernels.cu), launched from the committed PTX (kernels.ptx) that the
// driver JIT-compiles: no nvcc at build time (docs/driver-api.md).
#pragma once

#include <cuda.h>

#include <cstddef>
#include <cstdint>

namespace pinbench::cuda {

// Loads the kernels' module into the current context (cuModuleLoadData: the driver compiles the
// PTX, or takes it from its cache) unless it is loaded there already; the module stays loaded for
// the context's life, as the runtime's modules do. DeviceContext calls this before anything is
// measured, so that no measured step pays for it.
void load_kernels();

// Does nothing on the GPU; launching it once makes the first measured launch an ordinary one.
void launch_warmup(CUstream stream);

// Adds every 32-bit little-endian word of [data, data + bytes) (and the tail bytes, each as
// a value) into *sum. `data` may be a device pointer or a mapped host pointer. Throws CudaError.
void launch_checksum(const void* data, std::size_t bytes, void* sum, CUstream stream);

// The same sum on the host, for comparison.
std::uint64_t host_checksum(const void* data, std::size_t bytes);

}  // namespace pinbench::cuda
