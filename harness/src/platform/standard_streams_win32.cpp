#include "pinbench/standard_streams.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace pinbench {

void guard_standard_streams() {}

std::string standard_output_error() {
    std::cout.flush();
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    const int error = errno;
    if (flushed && !std::ferror(stdout) && std::cout.good()) return {};
    return error != 0 ? std::string(std::strerror(error)) : std::string("an earlier write failed");
}

}  // namespace pinbench
