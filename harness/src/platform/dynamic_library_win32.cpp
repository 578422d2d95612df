// DynamicLibrary on Windows: a library is loaded from System32 (a bare name) or from the absolute
// path given (and its dependencies from its own folder and System32); never from the current
// folder, the application's folder or PATH, so a DLL planted where pinbench runs is never loaded
// in the driver's place (docs/windows.md, "Which DLLs pinbench loads").
#include "pinbench/platform/dynamic_library.hpp"

#include <windows.h>

#include "platform/handles_win32.hpp"
#include "platform/program_search.hpp"

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

// The one load this file makes: a bare name from System32 only; an absolute path as given, its
// dependencies from its folder and System32. Anything else is refused with why.
HMODULE load(const std::string& name, std::string& why) {
    std::wstring wide;
    try {
        wide = win32::widen(name);
    } catch (const SystemError& e) {
        why = name + ": " + e.what();
        return nullptr;
    }
    // "C:\..." or "C:/..." (a drive and a root) or "\\server\share\..." (UNC, \\?\ included).
    if (is_absolute_folder(name, PathStyle::windows)) {
        HMODULE module = ::LoadLibraryExW(wide.c_str(), nullptr,
                                          LOAD_LIBRARY_SEARCH_DLL_LOAD_DIR | LOAD_LIBRARY_SEARCH_SYSTEM32);
        if (module == nullptr) why = name + ": " + win32::error_text(::GetLastError());
        return module;
    }
    // A name with a folder in it that is not absolute ("sub\x.dll", "C:x.dll", "\x.dll"): the
    // loader would resolve it against the current folder or drive.
    if (names_a_folder(name, PathStyle::windows)) {
        why = name +
              ": not loaded: a library is loaded from System32 by name or from an absolute path, "
              "never relative to the current folder";
        return nullptr;
    }
    HMODULE module = ::LoadLibraryExW(wide.c_str(), nullptr, LOAD_LIBRARY_SEARCH_SYSTEM32);
    if (module == nullptr) why = name + " (System32 only): " + win32::error_text(::GetLastError());
    return module;
}

// The file the loader mapped for `module`, as the OS names it.
std::string module_file(HMODULE module, const std::string& fallback) {
    std::wstring buffer(MAX_PATH, L'\0');
    for (;;) {
        const DWORD n = ::GetModuleFileNameW(module, buffer.data(), static_cast<DWORD>(buffer.size()));
        if (n == 0) return fallback;
        if (n < buffer.size()) {
            buffer.resize(n);
            break;
        }
        if (buffer.size() >= 32768) return fallback;
        buffer.resize(buffer.size() * 2);
    }
    try {
        return win32::narrow(buffer);
    } catch (const SystemError&) {
        return fallback;
    }
}

}  // namespace

bool load_libraries_from_system_only() {
    return ::SetDefaultDllDirectories(LOAD_LIBRARY_SEARCH_SYSTEM32) != FALSE;
}

std::unique_ptr<DynamicLibrary> DynamicLibrary::open(const std::vector<std::string>& names,
                                                     std::string* why) {
    QuietLoaderErrors quiet;
    std::string failures;
    for (const auto& name : names) {
        std::string failure;
        if (HMODULE module = load(name, failure); module != nullptr) {
            return std::unique_ptr<DynamicLibrary>(new DynamicLibrary(module, module_file(module, name)));
        }
        if (!failures.empty()) failures += "; ";
        failures += failure;
    }
    if (why != nullptr) *why = names.empty() ? std::string("no library names to try") : failures;
    return nullptr;
}

std::unique_ptr<DynamicLibrary> DynamicLibrary::open_system(const std::string& name, std::string* why) {
    QuietLoaderErrors quiet;
    if (names_a_folder(name, PathStyle::windows)) {
        if (why != nullptr) *why = name + ": a system library is named without a folder";
        return nullptr;
    }
    std::string failure;
    if (HMODULE module = load(name, failure); module != nullptr) {
        return std::unique_ptr<DynamicLibrary>(new DynamicLibrary(module, module_file(module, name)));
    }
    if (why != nullptr) *why = failure;
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
