// DynamicLibrary on POSIX: dlopen / dlsym / dlclose.
#include "pinbench/platform/dynamic_library.hpp"

#include <dlfcn.h>

namespace pinbench {

bool load_libraries_from_system_only() { return true; }

std::unique_ptr<DynamicLibrary> DynamicLibrary::open(const std::vector<std::string>& names,
                                                     std::string* why) {
    std::string failures;
    for (const auto& name : names) {
        // RTLD_NOW: a missing dependency fails here, not at the first call. RTLD_LOCAL: the
        // library's symbols do not leak into later loads.
        void* handle = ::dlopen(name.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle != nullptr) return std::unique_ptr<DynamicLibrary>(new DynamicLibrary(handle, name));
        const char* error = ::dlerror();
        const std::string text = error != nullptr ? error : name + ": dlopen failed";
        if (!failures.empty()) failures += "; ";
        // glibc's message starts with the name already ("libx.so: cannot open shared object ...").
        failures += text.rfind(name, 0) == 0 ? text : name + ": " + text;
    }
    if (why != nullptr) *why = names.empty() ? std::string("no library names to try") : failures;
    return nullptr;
}

std::unique_ptr<DynamicLibrary> DynamicLibrary::open_system(const std::string& name, std::string* why) {
    return open({name}, why);
}

DynamicLibrary::~DynamicLibrary() {
    if (handle_ != nullptr) ::dlclose(handle_);
}

void* DynamicLibrary::symbol(const char* name) const { return ::dlsym(handle_, name); }

}  // namespace pinbench
