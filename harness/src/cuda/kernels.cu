#include <cstring>

#include "cuda/kernels.hpp"

namespace pinbench::cuda {
namespace {

__global__ void warmup_kernel() {}

__global__ void checksum_kernel(const unsigned int* words, std::size_t n_words, const unsigned char* tail,
                                unsigned int n_tail, unsigned long long* sum) {
    unsigned long long local = 0;
    const std::size_t stride = std::size_t{blockDim.x} * gridDim.x;
    for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n_words; i += stride) {
        local += words[i];
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        for (unsigned int t = 0; t < n_tail; ++t) local += tail[t];
    }
    atomicAdd(sum, local);
}

}  // namespace

cudaError_t launch_warmup(cudaStream_t stream) {
    warmup_kernel<<<1, 1, 0, stream>>>();
    return cudaGetLastError();
}

cudaError_t launch_checksum(const void* data, std::size_t bytes, unsigned long long* sum,
                            cudaStream_t stream) {
    const auto* base = static_cast<const unsigned char*>(data);
    const std::size_t n_words = bytes / 4;
    const auto n_tail = static_cast<unsigned int>(bytes % 4);
    checksum_kernel<<<1024, 256, 0, stream>>>(reinterpret_cast<const unsigned int*>(base), n_words,
                                              base + n_words * 4, n_tail, sum);
    return cudaGetLastError();
}

std::uint64_t host_checksum(const void* data, std::size_t bytes) {
    const auto* base = static_cast<const unsigned char*>(data);
    std::uint64_t sum = 0;
    std::size_t i = 0;
    for (; i + 4 <= bytes; i += 4) {
        unsigned int w;
        std::memcpy(&w, base + i, 4);
        sum += w;
    }
    for (; i < bytes; ++i) sum += base[i];
    return sum;
}

}  // namespace pinbench::cuda
