// Every CUDA runtime return code is checked; a failure becomes a CudaError naming the API call.
// For the programs built with nvcc that use the CUDA runtime themselves (benchmarks/cuda/); the
// harness calls the driver API through its table instead (harness/src/cuda/driver_api.hpp).
#pragma once

#include <cuda_runtime_api.h>

namespace pinbench::cuda {

// Throws CudaError(api, code, cudaGetErrorName, cudaGetErrorString) unless `status` is
// cudaSuccess. Clears the sticky last error so later calls are not blamed for this one.
void check(cudaError_t status, const char* api);

}  // namespace pinbench::cuda

#define PINBENCH_CUDA(call) ::pinbench::cuda::check((call), #call)
