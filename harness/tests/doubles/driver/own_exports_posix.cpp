// The double's own exports by name, for cuGetProcAddress: the shared object holding this code.
#include <dlfcn.h>

#include "driver.hpp"

namespace pinbench::driver_double {

void* own_export(const char* name) {
    Dl_info self{};
    if (::dladdr(reinterpret_cast<void*>(&own_export), &self) == 0) return nullptr;
    void* library = ::dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (library == nullptr) return nullptr;
    void* found = ::dlsym(library, name);
    ::dlclose(library);
    return found;
}

}  // namespace pinbench::driver_double
