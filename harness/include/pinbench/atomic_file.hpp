// Whole-file writes that a crash cannot leave half-done: write a temporary file in the same
// directory, flush it to disk, then rename it over the target. A reader sees the old file
// or the new one, never a mix. Platform code: harness/src/platform/atomic_file_{posix,win32}.cpp.
#pragma once

#include <string>

namespace pinbench {

// Throws SystemError naming the path and the OS error.
void write_file_atomically(const std::string& path, const std::string& contents);

// Reads a whole file; throws SystemError when it cannot.
std::string read_file(const std::string& path);

}  // namespace pinbench
