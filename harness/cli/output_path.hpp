// The one rule for the output paths a user names (`run -o`, `results upgrade -o`, `trace -o`,
// `budget -o`, `doctor --bundle`), in this file and nowhere else (README.md, "Files pinbench reads and
// writes"):
// - a trailing separator (`-o out/`, on Windows also `out\`) names a folder: the file is written
//   inside it under the command's default name;
// - missing folders on the way are created (`-o out\quick.json` on a fresh unzip), and removed
//   again, if still empty, when the command ends without writing there (a run refused for want of
//   a GPU leaves no empty `out/`);
// - an output that is the same file as one of the command's inputs, by identity (the same name
//   spelled otherwise, a hard link, a symbolic link to it), is refused (InputError, exit 2):
//   `run --from s.json -o s.json` would destroy its own input;
// - then the checks every write makes (pinbench/platform/atomic_file.hpp): a directory, device, FIFO or
//   socket is never replaced.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace pinbench::cli {

// An output path prepared by the rule above: the path to write, and the folders made for it,
// which the destructor removes (innermost first) where they are still empty. Kept alive until
// the command has written, or failed to.
class PreparedOutput {
public:
    PreparedOutput(std::string path, std::vector<std::filesystem::path> created)
        : path_(std::move(path)), created_(std::move(created)) {}
    ~PreparedOutput();
    PreparedOutput(PreparedOutput&& other) noexcept
        : path_(std::move(other.path_)), created_(std::exchange(other.created_, {})) {}
    PreparedOutput(const PreparedOutput&) = delete;
    PreparedOutput& operator=(const PreparedOutput&) = delete;
    PreparedOutput& operator=(PreparedOutput&&) = delete;

    // The path to write (UTF-8).
    const std::string& path() const { return path_; }

private:
    std::string path_;
    std::vector<std::filesystem::path> created_;  // outermost first
};

// The output after the rule above; `inputs` may hold empty strings and "-" (standard input),
// which are skipped. Throws InputError when the output is refused (and leaves no folder made).
PreparedOutput prepare_output(const std::string& path, const std::string& default_name,
                              const std::vector<std::string>& inputs);

}  // namespace pinbench::cli
