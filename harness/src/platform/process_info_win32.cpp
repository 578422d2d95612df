#include "pinbench/platform/process_info.hpp"

#include <windows.h>
// after windows.h, which it needs
#include <shellapi.h>

#include <memory>
#include <string>

#include "pinbench/platform/dynamic_library.hpp"
#include "platform/handles_win32.hpp"

namespace pinbench {

std::string process_name(std::uint32_t pid) {
    const HANDLE h = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
    if (h == nullptr) return "";
    const win32::UniqueHandle process(h);
    wchar_t path[MAX_PATH] = {};
    DWORD size = MAX_PATH;
    if (!QueryFullProcessImageNameW(process.get(), 0, path, &size)) return "";
    std::wstring p(path, size);
    const auto slash = p.find_last_of(L"\\/");
    if (slash != std::wstring::npos) p = p.substr(slash + 1);
    const int n =
        WideCharToMultiByte(CP_UTF8, 0, p.c_str(), static_cast<int>(p.size()), nullptr, 0, nullptr, nullptr);
    std::string out(static_cast<std::size_t>(n > 0 ? n : 0), '\0');
    if (n > 0) {
        WideCharToMultiByte(CP_UTF8, 0, p.c_str(), static_cast<int>(p.size()), out.data(), n, nullptr,
                            nullptr);
    }
    return out;
}

// CommandLineToArgvW from System32's shell32.dll, loaded at run time: imported, shell32's own
// imports that are not KnownDLLs everywhere (shcore.dll under Wine) would be looked for in the
// program's folder before main runs (docs/windows.md, "Which DLLs pinbench loads").
std::vector<std::string> program_arguments(int /*argc*/, char** /*argv*/) {
    struct LocalFreeDeleter {
        void operator()(wchar_t** p) const { ::LocalFree(static_cast<HLOCAL>(p)); }
    };
    std::string why;
    const auto shell32 = DynamicLibrary::open_system("shell32.dll", &why);
    if (!shell32) throw SystemError("cannot read the command line: " + why);
    const auto split =
        reinterpret_cast<decltype(&::CommandLineToArgvW)>(shell32->symbol("CommandLineToArgvW"));
    if (split == nullptr) {
        throw SystemError("cannot read the command line: shell32.dll has no CommandLineToArgvW");
    }
    int n = 0;
    const std::unique_ptr<wchar_t*, LocalFreeDeleter> wide(split(::GetCommandLineW(), &n));
    if (!wide) throw SystemError("CommandLineToArgvW: " + win32::error_text(::GetLastError()));
    std::vector<std::string> arguments;
    arguments.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) arguments.push_back(win32::narrow(wide.get()[i]));
    return arguments;
}

}  // namespace pinbench
