// Text at the OS border. Inside pinbench every std::string is UTF-8: arguments, environment
// values, paths, file contents, messages. Text crosses into the OS only here and in the
// platform files:
// - a std::filesystem::path is made from a string only by path_from_utf8, and turned back only
//   by utf8_of / generic_utf8_of. Never path(std::string), path.string() or an fs:: call given a
//   std::string: on Windows those read and write the ANSI code page (1252, 932...), so a
//   non-ASCII letter becomes '?' or bytes that are not UTF-8;
// - an environment variable is read only by environment_variable (on Windows the wide
//   environment), never std::getenv (the ANSI copy of it);
// - the program's arguments are read by program_arguments (pinbench/platform/process_info.hpp).
// docs/windows.md, "Text is UTF-8". Platform code: harness/src/platform/utf8_{posix,win32}.cpp,
// also built into the trace injection library.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace pinbench {

// POSIX: the bytes as they are (a file name is bytes there). Windows: converted to UTF-16;
// text that is not valid UTF-8 is refused with an InputError saying at which byte.
std::filesystem::path path_from_utf8(std::string_view utf8);

// The path in UTF-8 (native separators). POSIX: the bytes as they are. Windows: an unpaired
// surrogate (a name no UTF-8 can spell) becomes U+FFFD, so the result is always valid UTF-8.
std::string utf8_of(const std::filesystem::path& path);

// The same with '/' separators (store keys, relative paths written into files).
std::string generic_utf8_of(const std::filesystem::path& path);

// The variable's value, nullopt when it is not set. Throws nothing (the trace injection library
// calls it inside the traced program) but std::bad_alloc.
std::optional<std::string> environment_variable(const char* name);

}  // namespace pinbench
