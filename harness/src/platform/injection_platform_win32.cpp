// The trace injection's OS side on Windows: an append-only file handle, the process and thread
// ids, CaptureStackBackTrace (module+offset; symbols would need dbghelp). Written
// for MSVC; checked with mingw-w64. The injection DLL itself is not built yet (docs/trace.md).
#include "platform/injection_platform.hpp"

#include <windows.h>

#include <cstdio>
#include <cstdlib>

#include "pinbench/platform/utf8.hpp"
#include "platform/handles_win32.hpp"

namespace pinbench::trace {
namespace {

// Not win32::widen / narrow: those throw on text that is not UTF-8, and this code runs inside the
// traced program's CUDA calls, where nothing may throw.
std::wstring widen(const std::string& s) {
    if (s.empty()) return {};
    const int n = ::MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), nullptr, 0);
    std::wstring w(static_cast<std::size_t>(n), L'\0');
    ::MultiByteToWideChar(CP_UTF8, 0, s.data(), static_cast<int>(s.size()), w.data(), n);
    return w;
}

std::string narrow(const std::wstring& w) {
    if (w.empty()) return {};
    const int n =
        ::WideCharToMultiByte(CP_UTF8, 0, w.data(), static_cast<int>(w.size()), nullptr, 0, nullptr, nullptr);
    std::string s(static_cast<std::size_t>(n), '\0');
    ::WideCharToMultiByte(CP_UTF8, 0, w.data(), static_cast<int>(w.size()), s.data(), n, nullptr, nullptr);
    return s;
}

}  // namespace

struct EventFile::File {
    win32::UniqueHandle handle;
};

EventFile::EventFile(const std::string& path) {
    win32::UniqueHandle handle(::CreateFileW(widen(path).c_str(), FILE_APPEND_DATA,
                                             FILE_SHARE_READ | FILE_SHARE_WRITE, nullptr, OPEN_ALWAYS,
                                             FILE_ATTRIBUTE_NORMAL, nullptr));
    if (handle.valid()) file_ = std::make_unique<File>(File{std::move(handle)});
}

EventFile::~EventFile() = default;

void EventFile::append_line(const std::string& line) const {
    if (!file_) return;
    const std::string whole = line + "\n";
    DWORD written = 0;
    // FILE_APPEND_DATA without FILE_WRITE_DATA: every write goes to the end as a unit.
    ::WriteFile(file_->handle.get(), whole.data(), static_cast<DWORD>(whole.size()), &written, nullptr);
}

std::uint32_t current_process_id() { return ::GetCurrentProcessId(); }

std::uint64_t current_thread_id() { return ::GetCurrentThreadId(); }

std::vector<std::string> native_stack(int depth) {
    std::vector<std::string> frames;
    if (depth <= 0) return frames;
    std::vector<void*> addresses(static_cast<std::size_t>(depth));
    const USHORT n = ::CaptureStackBackTrace(1, static_cast<DWORD>(depth), addresses.data(), nullptr);
    for (USHORT i = 0; i < n; ++i) {
        HMODULE module = nullptr;
        char text[600];
        wchar_t path[MAX_PATH];
        if (::GetModuleHandleExW(
                GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_UNCHANGED_REFCOUNT,
                static_cast<LPCWSTR>(addresses[i]), &module) &&
            ::GetModuleFileNameW(module, path, MAX_PATH) > 0) {
            std::string name = narrow(path);
            if (const auto slash = name.find_last_of("\\/"); slash != std::string::npos) {
                name.erase(0, slash + 1);
            }
            std::snprintf(
                text, sizeof text, "%s+0x%zx", name.c_str(),
                static_cast<std::size_t>(static_cast<char*>(addresses[i]) - reinterpret_cast<char*>(module)));
        } else {
            std::snprintf(text, sizeof text, "%p", addresses[i]);
        }
        frames.emplace_back(text);
    }
    return frames;
}

std::vector<std::string> cupti_candidates() {
    std::vector<std::string> names;
    if (const std::string explicit_path = environment_variable("PINBENCH_CUPTI_LIBRARY").value_or("");
        !explicit_path.empty()) {
        names.push_back(explicit_path);
    }
#ifdef PINBENCH_CUPTI_BUILD_PATH
    names.emplace_back(PINBENCH_CUPTI_BUILD_PATH);
#endif
    // The toolkit's CUPTI DLL carries its release in the name (cupti64_2025.3.0.dll): take
    // whichever the CUDA_PATH toolkit has.
    if (const std::string cuda = environment_variable("CUDA_PATH").value_or(""); !cuda.empty()) {
        const std::wstring dir = widen(cuda) + L"\\extras\\CUPTI\\lib64\\";
        WIN32_FIND_DATAW found{};
        HANDLE search = ::FindFirstFileW((dir + L"cupti64_*.dll").c_str(), &found);
        if (search != INVALID_HANDLE_VALUE) {
            do {
                names.push_back(narrow(dir + found.cFileName));
            } while (::FindNextFileW(search, &found));
            ::FindClose(search);
        }
    }
    return names;
}

}  // namespace pinbench::trace
