// The output-path rule of cli/output_path.hpp.
#include "output_path.hpp"

#include <filesystem>
#include <system_error>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/output_target.hpp"
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
                           const OutputInputs& inputs) {
    if (path.empty()) throw InputError("an output path is empty: name a file");
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
    const std::string target = utf8_of(out);
    check_output_target(target, inputs);  // before a folder is made for it
    create_folders(target, folder);
    check_output_path(target);
    return target;
}

}  // namespace pinbench::cli
