// What the driver does for a profiler, in the double (docs/test-double.md): it loads the library
// CUDA_INJECTION64_PATH names at the first cuInit and calls its InitializeInjection, and it makes
// a CUPTI subscriber's ENTER and EXIT callbacks around its host-pinning entry points (those
// docs/trace.md traces), each with a CUpti_CallbackData and the entry's parameter structure
// (generated_cuda_meta.h). The CUPTI double attaches through ../cupti/cupti_channel.hpp.
#pragma once

#include <cuda.h>

#include <cstdint>

namespace pinbench::driver_double {

// CUDA_SUCCESS when the variable is unset or the library's InitializeInjection ran; otherwise
// the reason is on stderr and the error returned (injection_<platform>.cpp).
CUresult load_injection();

// One call's callbacks: ENTER when made, EXIT by exit(); nothing without an attached subscriber.
// api_callbacks.cpp, or api_callbacks_none.cpp where the build has no cupti_callbacks.h.
class ApiCallbacks {
public:
    ApiCallbacks(std::uint32_t cbid, const char* name, const void* params);
    void exit(CUresult result);

private:
    std::uint32_t cbid_;
    const char* name_;
    const void* params_;
    std::uint64_t correlation_data_ = 0;  // the slot CUPTI shares between a call's two callbacks
    std::uint32_t correlation_id_ = 0;
};

// `call()` between the callbacks of `cbid` (a CUPTI_DRIVER_TRACE_CBID_*), `params` its
// parameters as CUPTI gives them.
template <typename Call>
CUresult traced(std::uint32_t cbid, const char* name, const void* params, Call call) {
    ApiCallbacks callbacks(cbid, name, params);
    const CUresult result = call();
    callbacks.exit(result);
    return result;
}

}  // namespace pinbench::driver_double
