// The CUDA core's kernels. Not compiled into the harness: ci/kernels_ptx.sh turns this file into
// kernels.ptx (committed), which the harness embeds and the driver JIT-compiles
// (kernels.cpp; docs/driver-api.md). extern "C": the PTX names are these names.
#include <cstddef>

extern "C" {

__global__ void pinbench_warmup() {}

// Adds every 32-bit little-endian word of `words` and each of the `n_tail` tail bytes into *sum.
__global__ void pinbench_checksum(const unsigned int* words, std::size_t n_words, const unsigned char* tail,
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

}  // extern "C"
