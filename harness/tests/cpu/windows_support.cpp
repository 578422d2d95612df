#include "windows_support.hpp"

#include <windows.h>

#include "test_paths.hpp"

namespace pinbench::testing_support {

std::optional<std::string> wine_version() {
    const HMODULE ntdll = ::GetModuleHandleW(L"ntdll.dll");
    if (ntdll == nullptr) return std::nullopt;
    using WineGetVersion = const char*(__cdecl*)();
    const auto get = reinterpret_cast<WineGetVersion>(
        reinterpret_cast<void*>(::GetProcAddress(ntdll, "wine_get_version")));
    if (get == nullptr) return std::nullopt;
    const char* version = get();
    return std::string(version != nullptr ? version : "(unknown version)");
}

std::string test_child_path() { return PINBENCH_TEST_CHILD; }

std::vector<std::string> test_child(const std::string& mode, const std::vector<std::string>& args) {
    std::vector<std::string> argv{test_child_path(), mode};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
}

}  // namespace pinbench::testing_support
