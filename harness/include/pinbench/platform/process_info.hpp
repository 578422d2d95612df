// What the OS says about a process: another one's name, for evidence a person reads, and this
// one's own arguments in UTF-8. Implemented in harness/src/platform/process_info_{posix,win32}.cpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pinbench {

// The executable's name ("python3", "pinbench.exe"), or "" when the OS will not tell.
std::string process_name(std::uint32_t pid);

// This program's arguments, argv[0] first, each in UTF-8 (pinbench/platform/utf8.hpp), for main to call
// first. POSIX: argv as it is. Windows: main's argv is in the ANSI code page (1252, 932...),
// which cannot hold most letters and is not UTF-8, so it is not used: the command line is read
// again in UTF-16 (GetCommandLineW, split by CommandLineToArgvW, the rules
// quote_windows_argument writes for) and each argument converted to UTF-8 once (an unpaired
// surrogate becomes U+FFFD). docs/windows.md, "Text is UTF-8", says why this and not a
// UTF-8 code page in the manifest.
std::vector<std::string> program_arguments(int argc, char** argv);

}  // namespace pinbench
