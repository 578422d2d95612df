// A build without cupti_callbacks.h (no CUPTI headers, or no crt/host_defines.h they need): the
// double makes no CUPTI callbacks, and there is no CUPTI double to attach (api_callbacks.hpp).
#include "api_callbacks.hpp"

namespace pinbench::driver_double {

ApiCallbacks::ApiCallbacks(std::uint32_t cbid, const char* name, const void* params)
    : cbid_(cbid), name_(name), params_(params) {}

void ApiCallbacks::exit(CUresult /*result*/) {}

}  // namespace pinbench::driver_double
