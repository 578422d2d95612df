#include "platform/random_token.hpp"

#include <cstdint>
#include <cstdio>
#include <random>

namespace pinbench {

std::string random_hex(int words) {
    std::random_device device;
    std::string out;
    for (int i = 0; i < words; ++i) {
        const std::uint64_t value = (static_cast<std::uint64_t>(device()) << 32) ^ device();
        char text[17];
        std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(value));
        out += text;
    }
    return out;
}

}  // namespace pinbench
