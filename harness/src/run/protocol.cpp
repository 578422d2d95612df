#include "run/protocol.hpp"

#include <random>

namespace pinbench {

std::string make_nonce() {
    std::random_device rd;
    std::mt19937_64 gen((static_cast<std::uint64_t>(rd()) << 32) ^ rd());
    static constexpr char hex[] = "0123456789abcdef";
    std::string out;
    for (int i = 0; i < 2; ++i) {
        std::uint64_t v = gen();
        for (int k = 0; k < 16; ++k, v >>= 4) out += hex[v & 15];
    }
    return out;
}

std::string response_mismatch(const nlohmann::json& request, const nlohmann::json& response) {
    if (!response.is_object()) return "response is not a JSON object";
    if (response.value("protocol", "") != child_protocol) return "response protocol is not " + std::string(child_protocol);
    if (response.value("nonce", "") != request.value("nonce", "")) return "response nonce does not match the request";
    if (response.value("run_id", "") != request.value("run_id", "")) return "response run id does not match the request";
    if (response.value("repeat", -1) != request.value("repeat", -1)) return "response repeat does not match the request";
    return {};
}

}  // namespace pinbench
