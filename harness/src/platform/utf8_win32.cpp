// UTF-8 at the OS border on Windows (pinbench/platform/utf8.hpp): paths and the environment are UTF-16
// there; std::filesystem::path holds UTF-16, so only the conversions need care.
#include "pinbench/platform/utf8.hpp"

#include <windows.h>

#include <cstdio>

#include "pinbench/vocabulary/errors.hpp"
#include "platform/handles_win32.hpp"

namespace pinbench {
namespace {

// Printable ASCII as it is, every other byte as \xNN: safe to print whatever the text was.
std::string escaped(std::string_view text) {
    std::string out;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte >= 0x20 && byte < 0x7F) {
            out += c;
        } else {
            char hex[8];
            std::snprintf(hex, sizeof hex, "\\x%02X", byte);
            out += hex;
        }
    }
    return out;
}

}  // namespace

std::filesystem::path path_from_utf8(std::string_view utf8) {
    try {
        return std::filesystem::path(win32::widen(utf8));
    } catch (const SystemError&) {
        throw InputError("a path that is not valid UTF-8: '" + escaped(utf8) + "'");
    }
}

std::string utf8_of(const std::filesystem::path& path) { return win32::narrow(path.native()); }

std::string generic_utf8_of(const std::filesystem::path& path) {
    return win32::narrow(path.generic_wstring());
}

std::optional<std::string> environment_variable(const char* name) {
    std::wstring wide_name;
    try {
        wide_name = win32::widen(name);
    } catch (const SystemError&) {
        return std::nullopt;  // no variable has a name that is not UTF-8
    }
    std::wstring value(256, L'\0');
    for (;;) {
        ::SetLastError(ERROR_SUCCESS);
        const DWORD n =
            ::GetEnvironmentVariableW(wide_name.c_str(), value.data(), static_cast<DWORD>(value.size()));
        if (n == 0) {
            if (::GetLastError() == ERROR_ENVVAR_NOT_FOUND) return std::nullopt;
            return std::string();  // set, and empty
        }
        if (n < value.size()) {  // the value without its terminating null
            value.resize(n);
            return win32::narrow(value);
        }
        value.resize(n);  // the size it needs, its null included
    }
}

}  // namespace pinbench
