#include "pinbench/platform/process_info.hpp"

#include <windows.h>
// after windows.h, which it needs
#include <shellapi.h>

#include <memory>
#include <string>

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

std::vector<std::string> program_arguments(int /*argc*/, char** /*argv*/) {
    struct LocalFreeDeleter {
        void operator()(wchar_t** p) const { ::LocalFree(static_cast<HLOCAL>(p)); }
    };
    int n = 0;
    const std::unique_ptr<wchar_t*, LocalFreeDeleter> wide(::CommandLineToArgvW(::GetCommandLineW(), &n));
    if (!wide) throw SystemError("CommandLineToArgvW: " + win32::error_text(::GetLastError()));
    std::vector<std::string> arguments;
    arguments.reserve(static_cast<std::size_t>(n));
    for (int i = 0; i < n; ++i) arguments.push_back(win32::narrow(wide.get()[i]));
    return arguments;
}

}  // namespace pinbench
