// The driver double as the process loaded it (System32\nvcuda.dll); never loaded from here.
#include "driver_link.hpp"

#include <windows.h>

namespace pinbench::doubles {

void* driver_export(const char* name) {
    HMODULE driver = ::GetModuleHandleW(L"nvcuda.dll");  // no reference taken: the program holds it
    return driver == nullptr ? nullptr : reinterpret_cast<void*>(::GetProcAddress(driver, name));
}

}  // namespace pinbench::doubles
