// The output-path rule of cli/output_path.hpp.
#include "output_path.hpp"

#include <filesystem>
#include <system_error>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/utf8.hpp"
#include "pinbench/vocabulary/errors.hpp"

namespace pinbench::cli {
namespace {

namespace fs = std::filesystem;

bool ends_with_separator(const std::string& path) {
    if (path.empty()) return false;
    const char last = path.back();
    return last == '/' || (fs::path::preferred_separator == '\\' && last == '\\');
}

// Creates `folder` and the folders above it that are missing.
void create_folders(const std::string& path, const fs::path& folder) {
    if (folder.empty()) return;
    std::error_code ec;
    if (fs::is_directory(folder, ec)) return;
    fs::create_directories(folder, ec);
    if (ec) {
        throw InputError("cannot write '" + path + "': cannot create the folder '" + utf8_of(folder) +
                         "': " + ec.message() + "; nothing was written");
    }
}

}  // namespace

std::string prepare_output(const std::string& path, const std::string& default_name,
                           const std::vector<std::string>& inputs) {
    if (path.empty()) throw InputError("an output path is empty");
    fs::path out = path_from_utf8(path);
    fs::path folder = out.parent_path();
    if (ends_with_separator(path)) {
        std::string bare = path;
        while (bare.size() > 1 && ends_with_separator(bare)) bare.pop_back();
        std::error_code ec;
        if (fs::exists(path_from_utf8(bare), ec) && !fs::is_directory(path_from_utf8(bare), ec)) {
            throw InputError("cannot write '" + path + "': a trailing separator names a folder, and '" +
                             path + "' is not one; nothing was written");
        }
        folder = out;
        out /= path_from_utf8(default_name);
    }
    std::string resolved = utf8_of(out);
    for (const auto& input : inputs) {
        if (input.empty() || input == "-") continue;
        std::error_code ec;
        if (fs::equivalent(path_from_utf8(input), out, ec) && !ec) {
            throw InputError("cannot write '" + resolved + "': it is the input '" + input +
                             "' (the same file); choose another output; nothing was written");
        }
    }
    create_folders(resolved, folder);
    check_output_path(resolved);
    return resolved;
}

}  // namespace pinbench::cli
