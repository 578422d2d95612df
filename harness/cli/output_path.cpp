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

// Creates `folder` and the folders above it that are missing; returns those it created,
// outermost first.
std::vector<fs::path> create_folders(const std::string& path, const fs::path& folder) {
    if (folder.empty()) return {};
    std::error_code ec;
    // "out/deeper/" names the folder "out/deeper" (its parent_path() would be that folder again).
    const fs::path named = folder.has_filename() ? folder : folder.parent_path();
    if (fs::is_directory(named, ec)) return {};
    std::vector<fs::path> missing;
    for (fs::path f = named; !f.empty() && !fs::exists(f, ec); f = f.parent_path()) {
        missing.insert(missing.begin(), f);
        if (f == f.parent_path()) break;
    }
    fs::create_directories(folder, ec);  // a file on the way: the error says so
    if (ec) {
        PreparedOutput undo("", missing);  // what was made before the failure
        throw InputError("cannot write '" + path + "': cannot create the folder '" + utf8_of(folder) +
                         "': " + ec.message() + "; nothing was written");
    }
    return missing;
}

}  // namespace

PreparedOutput::~PreparedOutput() {
    // Innermost first; a folder that holds anything (the file written, another's) stays.
    for (auto it = created_.rbegin(); it != created_.rend(); ++it) {
        std::error_code ec;
        if (!fs::exists(*it, ec)) continue;  // removed by someone else
        if (!fs::is_directory(*it, ec) || !fs::is_empty(*it, ec) || ec) break;
        fs::remove(*it, ec);
        if (ec) break;
    }
}

PreparedOutput prepare_output(const std::string& path, const std::string& default_name,
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
    PreparedOutput prepared(resolved, create_folders(resolved, folder));
    check_output_path(resolved);  // a refusal removes the folders just made
    return prepared;
}

}  // namespace pinbench::cli
