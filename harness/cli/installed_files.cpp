// The packaged files of cli/installed_files.hpp.
#include "installed_files.hpp"

#include <algorithm>
#include <system_error>
#include <vector>

#include "pinbench/platform/subprocess.hpp"
#include "pinbench/platform/utf8.hpp"

namespace pinbench::cli {
namespace {

namespace fs = std::filesystem;

bool holds_package(const fs::path& folder) {
    std::error_code ec;
    return fs::is_directory(folder / "scenarios", ec) && fs::is_directory(folder / "docs", ec);
}

bool is_bare_name(const std::string& name) {
    return !name.empty() && name.find('/') == std::string::npos && name.find('\\') == std::string::npos &&
           name != "." && name != "..";
}

}  // namespace

std::optional<fs::path> share_folder() {
    const fs::path exe_dir = path_from_utf8(current_executable_path()).parent_path();
    std::vector<fs::path> candidates{exe_dir.parent_path() / "share" / "pinbench", exe_dir};
    fs::path up = exe_dir;
    for (int i = 0; i < 4 && up.has_parent_path() && up != up.parent_path(); ++i) {
        up = up.parent_path();
        candidates.push_back(up);
    }
    for (const auto& c : candidates) {
        if (holds_package(c)) return c.lexically_normal();
    }
    return std::nullopt;
}

std::string find_named_file(const std::string& name, const std::string& folder, const std::string& extension,
                            std::string* where) {
    std::error_code ec;
    if (fs::is_regular_file(path_from_utf8(name), ec)) return name;
    const auto share = share_folder();
    if (!share) {
        if (where) *where = "this pinbench has no packaged files beside it";
        return {};
    }
    const fs::path dir = *share / path_from_utf8(folder);
    if (is_bare_name(name)) {
        fs::path candidate = dir / path_from_utf8(name);
        if (fs::is_regular_file(candidate, ec)) return utf8_of(candidate);
        if (!candidate.has_extension()) {
            candidate += extension;
            if (fs::is_regular_file(candidate, ec)) return utf8_of(candidate);
        }
    }
    if (where) {
        std::vector<std::string> names;
        for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
            if (it->path().extension() == path_from_utf8(extension))
                names.push_back(utf8_of(it->path().filename()));
        }
        std::sort(names.begin(), names.end());
        std::string list;
        for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
        *where = "the packaged ones are in " + utf8_of(dir) + (list.empty() ? "" : ": " + list);
    }
    return {};
}

std::string docs_folder_text() {
    const auto share = share_folder();
    if (!share) return "docs/ of the pinbench source";
    return utf8_of(*share / "docs") + static_cast<char>(fs::path::preferred_separator);
}

}  // namespace pinbench::cli
