// UTF-8 at the OS border on POSIX (pinbench/platform/utf8.hpp): file names and the environment are bytes,
// taken and given as they are.
#include "pinbench/platform/utf8.hpp"

#include <cstdlib>

namespace pinbench {

std::filesystem::path path_from_utf8(std::string_view utf8) {
    return std::filesystem::path(std::string(utf8));
}

std::string utf8_of(const std::filesystem::path& path) { return path.native(); }

std::string generic_utf8_of(const std::filesystem::path& path) { return path.generic_string(); }

std::optional<std::string> environment_variable(const char* name) {
    const char* value = std::getenv(name);  // NOLINT(concurrency-mt-unsafe): nothing here sets one
    if (value == nullptr) return std::nullopt;
    return std::string(value);
}

}  // namespace pinbench
