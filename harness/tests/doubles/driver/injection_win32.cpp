// CUDA_INJECTION64_PATH on Windows (api_callbacks.hpp): LoadLibraryW of the path, as the driver.
#include <windows.h>

#include <cstdio>
#include <string>

#include "api_callbacks.hpp"

namespace pinbench::driver_double {

CUresult load_injection() {
    std::wstring path(32767, L'\0');
    const DWORD n = ::GetEnvironmentVariableW(L"CUDA_INJECTION64_PATH", path.data(), 32767);
    if (n == 0 || n >= 32767) return CUDA_SUCCESS;
    path.resize(n);
    // Never freed, as the driver never unloads it: CUPTI calls into it until the process ends,
    // after this DLL's own destructors may have run. So no owning handle here.
    HMODULE library = ::LoadLibraryW(path.c_str());
    if (library == nullptr) {
        std::fprintf(stderr,
                     "pinbench driver double: CUDA_INJECTION64_PATH=%ls: LoadLibrary failed (error %lu)\n",
                     path.c_str(), ::GetLastError());
        return CUDA_ERROR_UNKNOWN;
    }
    const auto initialize = reinterpret_cast<int (*)()>(::GetProcAddress(library, "InitializeInjection"));
    if (initialize == nullptr) {
        std::fprintf(stderr,
                     "pinbench driver double: CUDA_INJECTION64_PATH=%ls exports no InitializeInjection\n",
                     path.c_str());
        return CUDA_ERROR_UNKNOWN;
    }
    return initialize() != 0 ? CUDA_SUCCESS : CUDA_ERROR_UNKNOWN;
}

}  // namespace pinbench::driver_double
