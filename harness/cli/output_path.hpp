// The output paths a user names (`run -o`, `results upgrade -o`, `trace -o`, `budget -o`,
// `doctor --bundle`), in this file and nowhere else (README.md, "Files pinbench reads and
// writes"):
// - a trailing separator (`-o out/`, on Windows also `out\`) names a folder: the file is written
//   inside it under the command's default name;
// - then the rule of every output (pinbench/platform/output_target.hpp): an empty path, one of the
//   command's inputs (by identity, through links and `..`, also through folders not made yet;
//   standard input by what descriptor 0 is open on), a file inside a store the command reads or
//   writes, or a directory, socket or block device is refused (InputError, exit 2);
// - missing folders on the way are created (`-o out\quick.json` on a fresh unzip);
// - then the checks every write makes (pinbench/platform/atomic_file.hpp): a device or FIFO
//   (/dev/null, /dev/stdout) is written in place, never renamed over.
#pragma once

#include <string>

#include "pinbench/platform/output_target.hpp"

namespace pinbench::cli {

// The path to write (UTF-8), after the rule above. Throws InputError when it is refused.
std::string prepare_output(const std::string& path, const std::string& default_name,
                           const OutputInputs& inputs);

}  // namespace pinbench::cli
