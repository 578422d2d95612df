// Quoting argv into one Windows command line so that CommandLineToArgvW and the MSVC C runtime
// hand the child exactly these arguments. Plain string code with no Windows API, so the rules
// are unit-tested on every platform (harness/tests/cpu/subprocess_test.cpp).
#pragma once

#include <string>
#include <vector>

namespace pinbench {

// Quotes only when needed. Inside quotes, backslashes are literal except before a quote:
// 2n backslashes + quote read as n backslashes and the end of the quoted part, 2n+1 backslashes
// + quote as n backslashes and a literal quote. argv[0] is parsed by simpler rules (no
// escapes), which agree with this for any real program path (no quotes, no trailing backslash).
inline std::string quote_windows_argument(const std::string& arg) {
    if (!arg.empty() && arg.find_first_of(" \t\n\v\"") == std::string::npos) return arg;
    std::string quoted = "\"";
    std::size_t backslashes = 0;
    for (const char c : arg) {
        if (c == '\\') {
            ++backslashes;
            continue;
        }
        if (c == '"') {
            quoted.append(backslashes * 2 + 1, '\\');
        } else {
            quoted.append(backslashes, '\\');
        }
        quoted += c;
        backslashes = 0;
    }
    quoted.append(backslashes * 2, '\\');  // they precede the closing quote
    quoted += '"';
    return quoted;
}

inline std::string join_windows_command_line(const std::vector<std::string>& argv) {
    std::string line;
    for (const auto& arg : argv) {
        if (!line.empty()) line += ' ';
        line += quote_windows_argument(arg);
    }
    return line;
}

}  // namespace pinbench
