// Atomic whole-file writes on Windows: temp file in the same directory, FlushFileBuffers, then
// MoveFileExW(REPLACE_EXISTING | WRITE_THROUGH). A writer killed part-way leaves at most a stale
// "<path>.tmp.<pid>.<random>" file beside the target; it is harmless and may be deleted.
#include "pinbench/atomic_file.hpp"

#include <windows.h>

#include <algorithm>
#include <cstdio>
#include <random>

#include "pinbench/errors.hpp"
#include "platform/handles_win32.hpp"
#include "platform/random_token.hpp"

namespace pinbench {
namespace {

using win32::UniqueHandle;

[[noreturn]] void fail_write(const std::string& path, const std::string& step, DWORD error) {
    throw SystemError("cannot write '" + path + "': " + step + ": " + win32::error_text(error));
}

class TempFile {
public:
    explicit TempFile(std::wstring path) : path_(std::move(path)) {}
    ~TempFile() {
        if (!path_.empty()) ::DeleteFileW(path_.c_str());
    }
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    void release() { path_.clear(); }

private:
    std::wstring path_;
};

// A reader (or a virus scanner) holding the target open without FILE_SHARE_DELETE makes the
// replace fail for a moment; a few short retries ride that out.
bool replace_file(const std::wstring& from, const std::wstring& to, DWORD& error) {
    for (int attempt = 0;; ++attempt) {
        if (::MoveFileExW(from.c_str(), to.c_str(), MOVEFILE_REPLACE_EXISTING | MOVEFILE_WRITE_THROUGH))
            return true;
        error = ::GetLastError();
        const bool transient = error == ERROR_ACCESS_DENIED || error == ERROR_SHARING_VIOLATION;
        if (!transient || attempt == 9) return false;
        ::Sleep(20);
    }
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& contents) {
    const std::string temp = path + ".tmp." + std::to_string(::GetCurrentProcessId()) + "." + random_hex();
    const std::wstring wide_path = win32::widen(path);
    const std::wstring wide_temp = win32::widen(temp);

    UniqueHandle file(::CreateFileW(wide_temp.c_str(), GENERIC_WRITE, 0, nullptr, CREATE_NEW,
                                    FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!file.valid()) {
        const DWORD error = ::GetLastError();  // before anything else can overwrite it
        fail_write(path, "create " + temp, error);
    }
    TempFile guard(wide_temp);

    std::size_t written = 0;
    while (written < contents.size()) {
        const DWORD chunk = static_cast<DWORD>(std::min<std::size_t>(contents.size() - written, 1u << 30));
        DWORD n = 0;
        if (!::WriteFile(file.get(), contents.data() + written, chunk, &n, nullptr)) {
            const DWORD error = ::GetLastError();
            fail_write(path, "write " + temp, error);
        }
        written += n;
    }
    // The data must be on disk before the rename makes it visible under the real name.
    if (!::FlushFileBuffers(file.get())) {
        const DWORD error = ::GetLastError();
        fail_write(path, "flush " + temp, error);
    }
    file.reset();

    DWORD error = ERROR_SUCCESS;
    if (!replace_file(wide_temp, wide_path, error)) fail_write(path, "rename " + temp, error);
    guard.release();
}

std::string read_file(const std::string& path) {
    const std::wstring wide = win32::widen(path);
    // Share everything: a concurrent atomic replace of this file must not fail because we read it.
    UniqueHandle file(::CreateFileW(wide.c_str(), GENERIC_READ,
                                    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                    OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr));
    if (!file.valid()) {
        const DWORD error = ::GetLastError();
        throw SystemError("cannot read '" + path + "': " + win32::error_text(error));
    }
    std::string contents;
    LARGE_INTEGER size{};
    if (::GetFileSizeEx(file.get(), &size) && size.QuadPart > 0)
        contents.reserve(static_cast<std::size_t>(size.QuadPart));
    char buffer[64 * 1024];
    for (;;) {
        DWORD n = 0;
        if (!::ReadFile(file.get(), buffer, sizeof buffer, &n, nullptr)) {
            const DWORD error = ::GetLastError();
            throw SystemError("cannot read '" + path + "': " + win32::error_text(error));
        }
        if (n == 0) break;
        contents.append(buffer, n);
    }
    return contents;
}

}  // namespace pinbench
