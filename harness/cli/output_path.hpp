// The one rule for the output paths a user names (`run -o`, `results upgrade -o`, `trace -o`,
// `budget -o`, `doctor --bundle`), in this file and nowhere else (README.md, "Files pinbench reads and
// writes"):
// - a trailing separator (`-o out/`, on Windows also `out\`) names a folder: the file is written
//   inside it under the command's default name;
// - missing folders on the way are created (`-o out\quick.json` on a fresh unzip);
// - an output that is the same file as one of the command's inputs, by identity (the same name
//   spelled otherwise, a hard link, a symbolic link to it), is refused (InputError, exit 2):
//   `run --from s.json -o s.json` would destroy its own input;
// - then the checks every write makes (pinbench/platform/atomic_file.hpp): a directory, device, FIFO or
//   socket is never replaced.
#pragma once

#include <string>
#include <vector>

namespace pinbench::cli {

// The path to write (UTF-8), after the rule above; `inputs` may hold empty strings and "-"
// (standard input), which are skipped. Throws InputError when the output is refused.
std::string prepare_output(const std::string& path, const std::string& default_name,
                           const std::vector<std::string>& inputs);

}  // namespace pinbench::cli
