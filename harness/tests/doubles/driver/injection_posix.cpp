// CUDA_INJECTION64_PATH on Linux (api_callbacks.hpp): dlopen of the path, as the driver.
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>

#include "api_callbacks.hpp"

namespace pinbench::driver_double {

CUresult load_injection() {
    const char* path = std::getenv("CUDA_INJECTION64_PATH");
    if (path == nullptr || *path == '\0') return CUDA_SUCCESS;
    // Never closed, as the driver never unloads it: CUPTI calls into it until the process ends.
    void* library = ::dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (library == nullptr) {
        std::fprintf(stderr, "pinbench driver double: CUDA_INJECTION64_PATH=%s: %s\n", path, ::dlerror());
        return CUDA_ERROR_UNKNOWN;
    }
    const auto initialize = reinterpret_cast<int (*)()>(::dlsym(library, "InitializeInjection"));
    if (initialize == nullptr) {
        std::fprintf(stderr,
                     "pinbench driver double: CUDA_INJECTION64_PATH=%s exports no InitializeInjection\n",
                     path);
        return CUDA_ERROR_UNKNOWN;
    }
    return initialize() != 0 ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN;
}

}  // namespace pinbench::driver_double
