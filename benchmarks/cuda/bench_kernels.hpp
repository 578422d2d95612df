// Launchers of the benchmark kernels (bench_kernels.cu), callable from host code compiled by
// a plain host compiler. CUDA core only.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>

namespace pinbench::cuda {

// Reads every byte of [data, data + bytes) once with 16-byte loads spread over the whole GPU
// (the tail byte by byte), so the time is the read bandwidth through `data`: a mapped host
// pointer reads over the bus (zero copy). The sum goes to *sink only if it equals a value it
// practically never has, which keeps the loads from being optimised away without a write.
cudaError_t launch_read_all(const void* data, std::size_t bytes, unsigned long long* sink,
                            cudaStream_t stream);

}  // namespace pinbench::cuda
