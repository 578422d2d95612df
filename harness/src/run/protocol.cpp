#include "run/protocol.hpp"

#include "platform/random_token.hpp"

namespace pinbench {

std::string make_nonce() { return random_hex(2); }

std::string response_mismatch(const nlohmann::json& request, const nlohmann::json& response) {
    if (!response.is_object()) return "response is not a JSON object";
    if (response.value("protocol", "") != child_protocol) {
        return "response protocol is not " + std::string(child_protocol);
    }
    if (response.value("nonce", "") != request.value("nonce", "")) {
        return "response nonce does not match the request";
    }
    if (response.value("run_id", "") != request.value("run_id", "")) {
        return "response run id does not match the request";
    }
    if (response.value("repeat", -1) != request.value("repeat", -1)) {
        return "response repeat does not match the request";
    }
    return {};
}

}  // namespace pinbench
