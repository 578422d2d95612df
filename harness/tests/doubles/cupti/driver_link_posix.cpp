// The driver double as the process loaded it (libcuda.so.1); RTLD_NOLOAD: never loaded from here.
#include "driver_link.hpp"

#include <dlfcn.h>

namespace pinbench::doubles {

void* driver_export(const char* name) {
    void* driver = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (driver == nullptr) return nullptr;
    void* found = ::dlsym(driver, name);
    ::dlclose(driver);  // the reference RTLD_NOLOAD took; the program still holds the driver
    return found;
}

}  // namespace pinbench::doubles
