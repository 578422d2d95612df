// The double's own exports by name, for cuGetProcAddress: the DLL holding this code (its
// reference count unchanged: the caller already holds it loaded).
#include <windows.h>

#include "driver.hpp"

namespace pinbench::driver_double {

void* own_export(const char* name) {
    HMODULE self = nullptr;
    if (::GetModuleHandleExW(
            GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
            reinterpret_cast<LPCWSTR>(&own_export), &self) == 0) {
        return nullptr;
    }
    return reinterpret_cast<void*>(::GetProcAddress(self, name));
}

}  // namespace pinbench::driver_double
