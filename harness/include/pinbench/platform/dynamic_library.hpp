// A shared library loaded at run time (dlopen / LoadLibrary). Platform code lives in
// harness/src/platform/dynamic_library_{posix,win32}.cpp.
#pragma once

#include <memory>
#include <string>
#include <vector>

namespace pinbench {

// Windows: every later library load of this process searches System32 only
// (SetDefaultDllDirectories(LOAD_LIBRARY_SEARCH_SYSTEM32)): ours, and those Windows' own DLLs
// make by bare name, never the program's or the current folder or PATH. The first thing main()
// does (docs/windows.md, "Which DLLs pinbench loads"); false when Windows refused it. POSIX:
// nothing to do, true.
bool load_libraries_from_system_only();

class DynamicLibrary {
public:
    // Tries each name in turn; nullptr with *why listing every failure when none loads.
    // Windows: a bare name is loaded from System32 only, an absolute path as given; a relative
    // path is refused. Never the current folder, the application's folder or PATH.
    static std::unique_ptr<DynamicLibrary> open(const std::vector<std::string>& names, std::string* why);
    // A library of the operating system or the driver: POSIX dlopen by name (the loader's
    // search, LD_LIBRARY_PATH included); Windows System32 only, never the application's or the
    // current folder (nvcuda.dll). nullptr with *why when it does not load.
    static std::unique_ptr<DynamicLibrary> open_system(const std::string& name, std::string* why);
    ~DynamicLibrary();
    DynamicLibrary(const DynamicLibrary&) = delete;
    DynamicLibrary& operator=(const DynamicLibrary&) = delete;

    // nullptr when the symbol is absent (an older driver): callers report "not available".
    void* symbol(const char* name) const;
    // The library as loaded: on Windows the file the loader mapped (GetModuleFileNameW), so a
    // message or a test can say which file it was; on POSIX the name dlopen was given.
    const std::string& loaded_name() const { return name_; }

private:
    DynamicLibrary(void* handle, std::string name) : handle_(handle), name_(std::move(name)) {}
    void* handle_;
    std::string name_;
};

}  // namespace pinbench
