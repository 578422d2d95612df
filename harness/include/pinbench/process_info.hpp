// What the OS says about another process: its name, for evidence a person reads.
// Implemented in harness/src/platform/process_info_{posix,win32}.cpp.
#pragma once

#include <cstdint>
#include <string>

namespace pinbench {

// The executable's name ("python3", "pinbench.exe"), or "" when the OS will not tell.
std::string process_name(std::uint32_t pid);

}  // namespace pinbench
