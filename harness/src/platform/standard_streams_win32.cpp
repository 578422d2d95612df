#include "platform/standard_streams.hpp"

#include <windows.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

#include "pinbench/platform/utf8.hpp"

namespace pinbench {
namespace {

bool is_console(DWORD which) {
    DWORD mode = 0;
    return ::GetConsoleMode(::GetStdHandle(which), &mode) != 0;
}

// The console's output code page before pinbench set it, restored at exit (0: unchanged).
UINT saved_output_code_page = 0;  // NOLINT(cppcoreguidelines-avoid-non-const-global-variables)

void restore_output_code_page() {
    if (saved_output_code_page != 0) ::SetConsoleOutputCP(saved_output_code_page);
}

}  // namespace

// pinbench writes UTF-8 bytes (pinbench/platform/utf8.hpp). Into a file or a pipe they go as they are:
// UTF-8 is what its files and output are. A console, though, reads the bytes in its output code
// page (850, 437, 932...), so a non-ASCII letter would show as two or three wrong ones: when
// standard output or error is a console, its output code page is set to UTF-8 (Windows 7 and
// later show it; a font without the letter shows a box, never other letters) and put back at a
// normal exit, so the console window is left as it was found. Not WriteConsoleW through a
// stream buffer of our own: more code between every message and the console for the same
// result. A program pinbench trace starts in the same console sees the UTF-8 code page too:
// what it prints in UTF-8 shows right, what it prints in an ANSI code page does not (programs
// that write wide text, Python's included, are not affected).
void guard_standard_streams() {
    if (!is_console(STD_OUTPUT_HANDLE) && !is_console(STD_ERROR_HANDLE)) return;
    const UINT before = ::GetConsoleOutputCP();
    if (before == 0 || before == CP_UTF8 || !::SetConsoleOutputCP(CP_UTF8)) return;
    saved_output_code_page = before;
    std::atexit(restore_output_code_page);
}

std::string standard_output_error() {
    std::cout.flush();
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    const int error = errno;
    if (flushed && !std::ferror(stdout) && std::cout.good()) return {};
    return error != 0 ? std::string(std::strerror(error)) : std::string("an earlier write failed");
}

bool standard_error_is_terminal() { return is_console(STD_ERROR_HANDLE); }

int standard_error_columns() {
    CONSOLE_SCREEN_BUFFER_INFO info{};
    if (!::GetConsoleScreenBufferInfo(::GetStdHandle(STD_ERROR_HANDLE), &info)) return 0;
    return info.srWindow.Right - info.srWindow.Left + 1;
}

bool colour_on_standard_error() {
    const auto no_colour = environment_variable("NO_COLOR");
    if (!standard_error_is_terminal() || (no_colour && !no_colour->empty())) return false;
    const HANDLE handle = ::GetStdHandle(STD_ERROR_HANDLE);
    DWORD mode = 0;
    if (!::GetConsoleMode(handle, &mode)) return false;
    // Windows 10 and later; an older console refuses it and shows no colour.
    return (mode & ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0 ||
           ::SetConsoleMode(handle, mode | ENABLE_VIRTUAL_TERMINAL_PROCESSING) != 0;
}

}  // namespace pinbench
