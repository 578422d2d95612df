#include "pinbench/cuda/cuda_check.hpp"

#include <string>

#include "pinbench/vocabulary/errors.hpp"

namespace pinbench::cuda {

void check(cudaError_t status, const char* api) {
    if (status == cudaSuccess) return;
    (void)cudaGetLastError();
    // Keep only the function name of "cudaFoo(args)" so messages stay one line.
    std::string name(api);
    if (auto paren = name.find('('); paren != std::string::npos) name.resize(paren);
    throw CudaError(name, static_cast<int>(status), cudaGetErrorName(status), cudaGetErrorString(status));
}

}  // namespace pinbench::cuda
