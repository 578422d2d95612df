// Whole-file writes that a crash cannot leave half-done: write a temporary file in the same
// directory, flush it to disk, then rename it over the target. A reader sees the old file
// or the new one, never a mix. Platform code: harness/src/platform/atomic_file_{posix,win32}.cpp.
//
// Every file pinbench writes goes through write_file_atomically and every file it reads through
// read_file, so the rules below hold for all of them (README.md, "Files pinbench reads and
// writes"):
// - An output path is absent, a regular file, or a symbolic link. A link is replaced by the new
//   file (its target is left as it was), as a rename replaces it. A character device (/dev/null,
//   a terminal) or a FIFO, a link to one included, and the file this process's standard output
//   or error is open on (/dev/stdout, /dev/fd/2) are written in place: opened for writing, never
//   created, truncated or renamed over. A directory, block device or socket is refused
//   (InputError: exit 2) and never replaced; so is a path whose folder is missing or not
//   writable. A write that fails once started (disk full, I/O error, a closed pipe) is a
//   SystemError (exit 3). Which outputs a command may name at all: output_target.hpp.
// - An input is a regular file (a link to one is followed) no larger than its kind's limit;
//   anything else is refused (InputError: exit 2) before a byte is read.
#pragma once

#include <cstdint>
#include <string>

namespace pinbench {

// The largest file pinbench reads, per kind of file. One definition: README.md quotes these
// (checked by CTest HostileInput.ReadmeStatesTheInputLimits).
namespace input_limit {
inline constexpr std::uint64_t text = std::uint64_t{16} << 20;   // scenario files, replay scripts
inline constexpr std::uint64_t data = std::uint64_t{256} << 20;  // results files, store files, traces
}  // namespace input_limit

// Throws InputError when `path` may not be written (see above), SystemError naming the path and
// the OS error when the write fails.
void write_file_atomically(const std::string& path, const std::string& contents);

// The checks write_file_atomically makes before it writes anything: for a command to call
// before it spends time (a run, a trace) on output it could not write. Throws InputError.
void check_output_path(const std::string& path);

// Whether write_file_atomically writes `path` in place (a device, a FIFO, a standard stream):
// a command that writes its file more than once (`run` after every run) writes it once there.
bool writes_in_place(const std::string& path);

// Reads a whole file. Throws InputError when it is not a regular file or is larger than
// `max_bytes`, SystemError when it cannot be opened or read.
std::string read_file(const std::string& path, std::uint64_t max_bytes = input_limit::data);

}  // namespace pinbench
