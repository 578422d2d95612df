// Windows handle ownership, UTF-8 <-> UTF-16 conversion and error text, shared by the
// *_win32.cpp files. Every string crossing the Windows API is UTF-8 on our side.
#pragma once

#include <windows.h>

#include <climits>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include "pinbench/vocabulary/errors.hpp"

namespace pinbench::win32 {

// Owns a kernel HANDLE. Both nullptr and INVALID_HANDLE_VALUE mean "none": CreateFileW
// reports failure with the one, most other APIs with the other.
class UniqueHandle {
public:
    UniqueHandle() = default;
    explicit UniqueHandle(HANDLE handle) : handle_(handle) {}
    ~UniqueHandle() { reset(); }
    UniqueHandle(UniqueHandle&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
    UniqueHandle& operator=(UniqueHandle&& other) noexcept {
        if (this != &other) reset(std::exchange(other.handle_, nullptr));
        return *this;
    }
    UniqueHandle(const UniqueHandle&) = delete;
    UniqueHandle& operator=(const UniqueHandle&) = delete;

    HANDLE get() const { return handle_; }
    bool valid() const { return handle_ != nullptr && handle_ != INVALID_HANDLE_VALUE; }
    void reset(HANDLE handle = nullptr) {
        if (valid()) ::CloseHandle(handle_);
        handle_ = handle;
    }

private:
    HANDLE handle_ = nullptr;
};

inline std::wstring widen(std::string_view utf8) {
    if (utf8.empty()) return {};
    if (utf8.size() > static_cast<std::size_t>(INT_MAX)) {
        throw SystemError("string too long for a Windows API");
    }
    const int size = static_cast<int>(utf8.size());
    const int n = ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8.data(), size, nullptr, 0);
    if (n <= 0) throw SystemError("not valid UTF-8: " + std::string(utf8));
    std::wstring wide(static_cast<std::size_t>(n), L'\0');
    ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, utf8.data(), size, wide.data(), n);
    return wide;
}

// Unpaired surrogates become U+FFFD, so the result is always valid UTF-8 (JSON needs that).
inline std::string narrow(std::wstring_view wide) {
    if (wide.empty()) return {};
    if (wide.size() > static_cast<std::size_t>(INT_MAX)) {
        throw SystemError("string too long for a Windows API");
    }
    const int size = static_cast<int>(wide.size());
    const int n = ::WideCharToMultiByte(CP_UTF8, 0, wide.data(), size, nullptr, 0, nullptr, nullptr);
    if (n <= 0) return {};
    std::string utf8(static_cast<std::size_t>(n), '\0');
    ::WideCharToMultiByte(CP_UTF8, 0, wide.data(), size, utf8.data(), n, nullptr, nullptr);
    return utf8;
}

// "Access is denied (error 5)"; `module` supplies messages the system does not know (PDH).
inline std::string error_text(DWORD code, HMODULE module = nullptr) {
    wchar_t buffer[512];
    DWORD flags = FORMAT_MESSAGE_FROM_SYSTEM | FORMAT_MESSAGE_IGNORE_INSERTS;
    if (module != nullptr) flags |= FORMAT_MESSAGE_FROM_HMODULE;
    DWORD n =
        ::FormatMessageW(flags, module, code, 0, buffer, static_cast<DWORD>(std::size(buffer)), nullptr);
    while (n > 0 && (buffer[n - 1] == L'\r' || buffer[n - 1] == L'\n' || buffer[n - 1] == L' ' ||
                     buffer[n - 1] == L'.')) {
        --n;
    }
    const std::string text = n > 0 ? narrow(std::wstring_view(buffer, n)) : std::string("unknown error");
    char number[32];
    // Small codes are Win32 errors; large ones are HRESULT / NTSTATUS / PDH codes, read in hex.
    std::snprintf(number, sizeof number, code > 0xFFFF ? " (0x%08lX)" : " (error %lu)",
                  static_cast<unsigned long>(code));
    return text + number;
}

// A function from GetProcAddress as its real type (through void(*)() so compilers accept the cast).
template <class Fn>
Fn proc_address(HMODULE module, const char* name) {
    return reinterpret_cast<Fn>(reinterpret_cast<void (*)()>(::GetProcAddress(module, name)));
}

}  // namespace pinbench::win32
