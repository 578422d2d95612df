// Every CUDA return code is checked; a failure becomes a CudaError naming the API call.
// Public for the CUDA-core files of other targets (benchmarks/cuda/); it includes the CUDA
// runtime header, so only CUDA-core files include it.
#pragma once

#include <cuda_runtime_api.h>

namespace pinbench::cuda {

// Throws CudaError(api, code, cudaGetErrorName, cudaGetErrorString) unless `status` is
// cudaSuccess. Clears the sticky last error so later calls are not blamed for this one.
void check(cudaError_t status, const char* api);

}  // namespace pinbench::cuda

#define PINBENCH_CUDA(call) ::pinbench::cuda::check((call), #call)
