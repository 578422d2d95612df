#include "cuda/register_bench_support.hpp"

#include <cuda_runtime_api.h>

#include <utility>

#include "cuda/cuda_check.hpp"
#include "pinbench/api_variant.hpp"

namespace pinbench::bench {

namespace {

unsigned register_flags(unsigned api_flags) {
    unsigned f = cudaHostRegisterDefault;
    if (api_flags & flag_portable) f |= cudaHostRegisterPortable;
    if (api_flags & flag_mapped) f |= cudaHostRegisterMapped;
    return f;
}

}  // namespace

HostRegistration::HostRegistration(void* ptr, std::size_t bytes, unsigned api_flags) : ptr_(ptr) {
    PINBENCH_CUDA(cudaHostRegister(ptr, bytes, register_flags(api_flags)));
}

HostRegistration::~HostRegistration() {
    if (ptr_ != nullptr) cudaHostUnregister(ptr_);
}

void HostRegistration::release() {
    if (ptr_ == nullptr) return;
    PINBENCH_CUDA(cudaHostUnregister(std::exchange(ptr_, nullptr)));
}

}  // namespace pinbench::bench
