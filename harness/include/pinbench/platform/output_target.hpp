// The one rule for where a command may write (issue 57, "Output targets"), asked of the file
// system once (STYLE.md, "A rule lives in one place"), for every file a command writes: `run -o`,
// `results upgrade -o`, `budget -o`, `trace -o`, `doctor --bundle` (through
// harness/cli/output_path.cpp) and the files `store add` writes into a store. Then
// write_file_atomically (pinbench/platform/atomic_file.hpp) writes it.
//
// The path is resolved as the write will resolve it: made absolute, its links followed, and
// `..` taken after the links of the folders before it, also through folders not made yet
// (`newdir/../t.yaml` is `t.yaml`: the folder is made first). The target is refused
// (InputError: exit 2, one line, nothing written) when it is
// - empty;
// - one of the command's inputs, by identity (the file system says whether two names are one
//   file: another spelling, a hard link, a symbolic link to it); standard input ("-") is the
//   file descriptor 0 is open on, whatever it is named (`results upgrade - -o i.json <i.json`);
// - inside a store the command reads or writes (`--store S -o S/store.json`);
// - a directory, a socket or a block device, never replaced.
// A character device (/dev/null, a terminal) or a FIFO, a link to one included, and the file this
// process's standard output or error is open on (/dev/stdout) are written in place, never renamed
// over (write_file_atomically). Implemented in output_target.cpp, with the identity of the
// standard streams in output_target_{posix,win32}.cpp.
#pragma once

#include <string>
#include <vector>

namespace pinbench {

struct OutputInputs {
    std::vector<std::string> files;   // what the command reads; "-" is standard input; "" is skipped
    std::vector<std::string> stores;  // store directories it reads or writes; "" is skipped
};

// Throws InputError when `path` may not be written by a command with these inputs (above).
void check_output_target(const std::string& path, const OutputInputs& inputs);

// `path` as the write resolves it: absolute, links followed, `..` after them (UTF-8).
std::string resolved_output_path(const std::string& path);

// Whether `path` (its links followed) is the file standard input (0), output (1) or error (2)
// is open on, by identity. False when the stream is closed or the path names nothing.
bool is_standard_stream(const std::string& path, int stream);

}  // namespace pinbench
