// The double cannot run PTX: it knows the harness's kernels by their entry names and does their
// effect on the host, so a check that reads memory through the device still passes or fails on
// the bytes that are there.
#include <cstdio>
#include <cstring>

#include "driver.hpp"

namespace pinbench::driver_double {
namespace {

// pinbench_checksum(const unsigned* words, size_t n_words, const unsigned char* tail,
//                 unsigned n_tail, unsigned long long* sum): adds every word and tail byte to *sum
// (harness/src/cuda/kernels.cu, kernels.ptx).
CUresult checksum(void** params) {
    if (params == nullptr) return CUDA_ERROR_INVALID_VALUE;
    const auto* words = *static_cast<const unsigned char* const*>(params[0]);
    const std::size_t n_words = *static_cast<const std::size_t*>(params[1]);
    const auto* tail = *static_cast<const unsigned char* const*>(params[2]);
    const unsigned n_tail = *static_cast<const unsigned*>(params[3]);
    auto* sum = *static_cast<unsigned long long* const*>(params[4]);
    Driver& d = driver();
    {
        const std::lock_guard lock(d.mutex);
        if (d.range_of(reinterpret_cast<std::uintptr_t>(words), n_words * 4) == nullptr ||
            (n_tail > 0 && d.range_of(reinterpret_cast<std::uintptr_t>(tail), n_tail) == nullptr) ||
            d.range_of(reinterpret_cast<std::uintptr_t>(sum), sizeof *sum) == nullptr) {
            return CUDA_ERROR_ILLEGAL_ADDRESS;  // what a kernel reading memory it cannot reach gets
        }
    }
    unsigned long long local = 0;
    for (std::size_t i = 0; i < n_words; ++i) {
        unsigned int w = 0;
        std::memcpy(&w, words + i * 4, 4);
        local += w;
    }
    for (unsigned t = 0; t < n_tail; ++t) local += tail[t];
    *sum += local;
    return CUDA_SUCCESS;
}

}  // namespace

// The entry names of harness/src/cuda/kernels.ptx.
KernelEffect effect_of(const std::string& entry_name) {
    if (entry_name == "pinbench_checksum") return KernelEffect::checksum;
    if (entry_name == "pinbench_warmup") return KernelEffect::none;
    return KernelEffect::unknown;
}

CUresult run_kernel(const Function& f, void** params) {
    switch (f.effect) {
        case KernelEffect::none:
            return CUDA_SUCCESS;
        case KernelEffect::checksum:
            return checksum(params);
        case KernelEffect::unknown:
            // Doing nothing would let a check pass on work that never happened.
            std::fprintf(stderr, "pinbench driver double: no host effect for the kernel %s\n",
                         f.name.c_str());
            return CUDA_ERROR_NOT_SUPPORTED;
    }
    return CUDA_ERROR_INVALID_VALUE;
}

}  // namespace pinbench::driver_double
