#include "platform/program_search.hpp"

#include <cctype>
#include <string_view>

namespace pinbench {
namespace {

bool is_separator(char c, PathStyle style) { return c == '/' || (style == PathStyle::windows && c == '\\'); }

// "x.exe", "x.cmd": a dot after the last separator, not the name's first letter.
bool has_extension(const std::string& name, PathStyle style) {
    std::size_t start = 0;
    for (std::size_t i = 0; i < name.size(); ++i) {
        if (is_separator(name[i], style)) start = i + 1;
    }
    const auto dot = name.find_last_of('.');
    return dot != std::string::npos && dot > start && dot + 1 < name.size();
}

std::string_view unquoted(std::string_view entry, PathStyle style) {
    if (style == PathStyle::windows && entry.size() >= 2 && entry.front() == '"' && entry.back() == '"') {
        entry = entry.substr(1, entry.size() - 2);
    }
    return entry;
}

}  // namespace

bool names_a_folder(const std::string& name, PathStyle style) {
    for (const char c : name) {
        if (is_separator(c, style) || (style == PathStyle::windows && c == ':')) return true;
    }
    return false;
}

bool is_absolute_folder(const std::string& folder, PathStyle style) {
    if (style == PathStyle::posix) return !folder.empty() && folder[0] == '/';
    const auto letter = static_cast<unsigned char>(folder.empty() ? '\0' : folder[0]);
    if (folder.size() >= 3 && std::isalpha(letter) != 0 && folder[1] == ':' &&
        is_separator(folder[2], style)) {
        return true;
    }
    // \\server\share and \\?\C:\...: at least one letter after the two separators.
    return folder.size() >= 3 && is_separator(folder[0], style) && is_separator(folder[1], style) &&
           !is_separator(folder[2], style);
}

std::vector<std::string> program_candidates(const std::string& name, const std::string& path_variable,
                                            PathStyle style) {
    std::vector<std::string> out;
    if (name.empty() || names_a_folder(name, style)) return out;
    const char list_separator = style == PathStyle::windows ? ';' : ':';
    const std::string file =
        style == PathStyle::windows && !has_extension(name, style) ? name + ".exe" : name;
    std::size_t start = 0;
    while (start <= path_variable.size()) {
        std::size_t end = path_variable.find(list_separator, start);
        if (end == std::string::npos) end = path_variable.size();
        const std::string folder(unquoted(std::string_view(path_variable).substr(start, end - start), style));
        if (is_absolute_folder(folder, style)) {
            const bool ends_with_separator = is_separator(folder.back(), style);
            out.push_back(folder + (ends_with_separator ? "" : (style == PathStyle::windows ? "\\" : "/")) +
                          file);
        }
        start = end + 1;
    }
    return out;
}

std::optional<std::string> resolve_program(const std::string& name, const std::string& path_variable,
                                           PathStyle style,
                                           const std::function<bool(const std::string&)>& is_program) {
    if (name.empty()) return std::nullopt;
    if (names_a_folder(name, style)) {
        // As CreateProcess runs `sub\prog` for `sub\prog.exe`; else as given, for its own error.
        if (style == PathStyle::windows && !has_extension(name, style) && !is_program(name) &&
            is_program(name + ".exe")) {
            return name + ".exe";
        }
        return name;
    }
    for (const auto& candidate : program_candidates(name, path_variable, style)) {
        if (is_program(candidate)) return candidate;
    }
    return std::nullopt;
}

}  // namespace pinbench
