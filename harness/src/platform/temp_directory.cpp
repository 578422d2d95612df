// The temporary directory (platform/temp_directory.hpp).
#include "platform/temp_directory.hpp"

#include <filesystem>
#include <system_error>

#include "pinbench/platform/utf8.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

// Which variable named it, for the message: TMPDIR where set (POSIX reads it), else the names
// the OS reads.
std::string named_by() {
    if (const auto tmpdir = environment_variable("TMPDIR")) {
        return "TMPDIR='" + terminal_text(*tmpdir) + "'";
    }
    return "the temporary directory (TMPDIR, TMP or TEMP)";
}

}  // namespace

std::string temp_directory() {
    std::error_code ec;
    const fs::path dir = fs::temp_directory_path(ec);
    if (ec) {
        throw InputError(named_by() + ": not a usable temporary directory (" + ec.message() +
                         "); set TMPDIR to an existing, writable directory");
    }
    return utf8_of(dir);
}

void create_temp_folder(const std::string& path) {
    std::error_code ec;
    fs::create_directories(path_from_utf8(path), ec);
    if (!ec) return;
    if (ec == std::errc::permission_denied || ec == std::errc::operation_not_permitted ||
        ec == std::errc::read_only_file_system || ec == std::errc::not_a_directory ||
        ec == std::errc::no_such_file_or_directory) {
        throw InputError(named_by() + ": cannot create '" + terminal_text(path) + "' there (" + ec.message() +
                         "); set TMPDIR to an existing, writable directory");
    }
    throw SystemError("cannot create '" + path + "': " + ec.message());
}

}  // namespace pinbench
