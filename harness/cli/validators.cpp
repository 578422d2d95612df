#include "validators.hpp"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <system_error>

#include "installed_files.hpp"
#include "pinbench/platform/utf8.hpp"
#include "pinbench/vocabulary/units.hpp"

namespace pinbench::cli {

SizeValidator::SizeValidator() {
    name_ = "SIZE";
    func_ = [](std::string& s) -> std::string {
        try {
            (void)parse_size(s);
            return {};
        } catch (const std::exception& e) {
            return e.what();
        }
    };
}

SizeValidator::SizeValidator(std::uint64_t min, std::uint64_t max) {
    name_ = "SIZE";
    const std::string range = size_label(min) + " to " + size_label(max);
    description("a size from " + range);
    func_ = [=](std::string& s) -> std::string {
        try {
            const std::uint64_t v = parse_size(s);
            if (v < min || v > max) return "'" + s + "' is out of range (expected " + range + ")";
            return {};
        } catch (const std::exception& e) {
            return e.what();
        }
    };
}

ExistingFile::ExistingFile() {
    name_ = "FILE";
    func_ = [](std::string& name) -> std::string {
        std::error_code ec;
        std::filesystem::file_status status;
        try {
            status = std::filesystem::status(path_from_utf8(name), ec);
        } catch (const std::exception& e) {  // not UTF-8 (Windows): says so
            return e.what();
        }
        if (ec || !std::filesystem::exists(status)) return "File does not exist: " + name;
        if (std::filesystem::is_directory(status)) return "File is actually a directory: " + name;
        return {};
    };
}

PackagedFile::PackagedFile(const std::string& folder, const std::string& extension) {
    name_ = "FILE";
    func_ = [folder, extension, existing = ExistingFile()](std::string& name) -> std::string {
        const std::string problem = existing(name);
        if (problem.empty()) return {};
        std::string where;
        const std::string found = find_named_file(name, folder, extension, &where);
        if (found.empty()) return problem + "; " + where;
        name = found;
        return {};
    };
}

FiniteNumber::FiniteNumber(double min, double max, bool min_excluded) {
    const auto label = [](double v) {
        char text[32];
        std::snprintf(text, sizeof text, "%g", v);
        return std::string(text);
    };
    const std::string range =
        (min_excluded ? "above " + label(min) + " and up to " : label(min) + " to ") + label(max);
    name_ = "NUMBER";
    description("a number " + range);
    func_ = [=](std::string& s) -> std::string {
        const char* begin = s.c_str();
        char* end = nullptr;
        const double v = std::strtod(begin, &end);
        if (s.empty() || end != begin + s.size()) return "'" + s + "' is not a number";
        if (!std::isfinite(v)) return "'" + s + "' is not a finite number (expected " + range + ")";
        if (v < min || v > max || (min_excluded && v == min)) {
            return "'" + s + "' is out of range (expected " + range + ")";
        }
        return {};
    };
}

}  // namespace pinbench::cli
