// DynamicLibrary on Windows: LoadLibraryExW restricted to safe directories, then LoadLibraryW.
#include "pinbench/dynamic_library.hpp"

#include <windows.h>

#include "platform/handles_win32.hpp"

namespace pinbench {
namespace {

// Loader failures must come back as errors, not as a dialog box waiting for a click.
class QuietLoaderErrors {
public:
    QuietLoaderErrors() { ::SetThreadErrorMode(SEM_FAILCRITICALERRORS | SEM_NOOPENFILEERRORBOX, &old_); }
    ~QuietLoaderErrors() { ::SetThreadErrorMode(old_, nullptr); }
    QuietLoaderErrors(const QuietLoaderErrors&) = delete;
    QuietLoaderErrors& operator=(const QuietLoaderErrors&) = delete;

private:
    DWORD old_ = 0;
};

}  // namespace

std::unique_ptr<DynamicLibrary> DynamicLibrary::open(const std::vector<std::string>& names,
                                                     std::string* why) {
    QuietLoaderErrors quiet;
    std::string failures;
    for (const auto& name : names) {
        std::wstring wide;
        try {
            wide = win32::widen(name);
        } catch (const SystemError& e) {
            if (!failures.empty()) failures += "; ";
            failures += name + ": " + e.what();
            continue;
        }
        // System32 and the application directory only, so a planted DLL in the current
        // directory is never picked up (nvml.dll lives in System32 on current drivers). The
        // plain LoadLibraryW covers names found elsewhere on PATH and systems without
        // LOAD_LIBRARY_SEARCH_* support.
        HMODULE module = ::LoadLibraryExW(wide.c_str(), nullptr,
                                          LOAD_LIBRARY_SEARCH_SYSTEM32 | LOAD_LIBRARY_SEARCH_DEFAULT_DIRS);
        const DWORD restricted_error = module == nullptr ? ::GetLastError() : ERROR_SUCCESS;
        if (module == nullptr) module = ::LoadLibraryW(wide.c_str());
        if (module != nullptr) return std::unique_ptr<DynamicLibrary>(new DynamicLibrary(module, name));
        const DWORD error = ::GetLastError();
        if (!failures.empty()) failures += "; ";
        failures += name + ": " + win32::error_text(error);
        if (restricted_error != error) {
            failures += " (restricted search: " + win32::error_text(restricted_error) + ")";
        }
    }
    if (why != nullptr) *why = names.empty() ? std::string("no library names to try") : failures;
    return nullptr;
}

std::unique_ptr<DynamicLibrary> DynamicLibrary::open_system(const std::string& name, std::string* why) {
    QuietLoaderErrors quiet;
    std::wstring wide;
    try {
        wide = win32::widen(name);
    } catch (const SystemError& e) {
        if (why != nullptr) *why = name + ": " + e.what();
        return nullptr;
    }
    // System32 alone: a DLL of the same name planted beside the program or in the current
    // folder is never loaded in the driver's place.
    HMODULE module = ::LoadLibraryExW(wide.c_str(), nullptr, LOAD_LIBRARY_SEARCH_SYSTEM32);
    if (module != nullptr) return std::unique_ptr<DynamicLibrary>(new DynamicLibrary(module, name));
    if (why != nullptr) *why = name + " (System32): " + win32::error_text(::GetLastError());
    return nullptr;
}

DynamicLibrary::~DynamicLibrary() {
    if (handle_ != nullptr) ::FreeLibrary(static_cast<HMODULE>(handle_));
}

void* DynamicLibrary::symbol(const char* name) const {
    // Function pointer to void*: conditionally supported, and supported by MSVC, GCC and Clang.
    return reinterpret_cast<void*>(::GetProcAddress(static_cast<HMODULE>(handle_), name));
}

}  // namespace pinbench
