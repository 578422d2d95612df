// cudaHostRegister around memory the caller owns, so a benchmark can time registration on
// its own (touched or untouched memory, from the OS directly). No CUDA types in this header.
#pragma once

#include <cstddef>

namespace pinbench::bench {

class HostRegistration {
public:
    // cudaHostRegister(ptr, bytes, flags); `api_flags` are pinbench::ApiFlag bits
    // (flag_portable, flag_mapped). Throws CudaError.
    HostRegistration(void* ptr, std::size_t bytes, unsigned api_flags);
    ~HostRegistration();  // cudaHostUnregister unless release() already did
    HostRegistration(const HostRegistration&) = delete;
    HostRegistration& operator=(const HostRegistration&) = delete;

    // cudaHostUnregister now, so unregistering can be timed separately. Throws CudaError.
    void release();

private:
    void* ptr_;
};

}  // namespace pinbench::bench
