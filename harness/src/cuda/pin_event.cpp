#include "cuda/pin_event.hpp"

#include <sstream>

namespace pinbench::trace {
namespace {

template <typename T>
T value_or(const nlohmann::json& j, const char* key, T fallback) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return fallback;
    return it->get<T>();
}

}  // namespace

nlohmann::json to_json_line(const InjectionStart& s) {
    return {{"event", "start"}, {"pid", s.pid}, {"t_ns", s.t_ns}, {"cupti", s.cupti}, {"error", s.error}};
}

nlohmann::json to_json_line(const PinCall& c) {
    nlohmann::json j = {{"event", "call"},
                        {"api", c.api},
                        {"pid", c.pid},
                        {"tid", c.tid},
                        {"t_ns", c.t_ns},
                        {"duration_ns", c.duration_ns},
                        {"callback_ns", c.callback_ns},
                        {"bytes", c.bytes},
                        {"flags", c.flags},
                        {"address", c.address},
                        {"device", c.device},
                        {"result", c.result},
                        {"result_name", c.result_name}};
    if (c.pool != 0) j["pool"] = c.pool;
    if (c.pool_reserved) j["pool_reserved"] = *c.pool_reserved;
    if (!c.location.empty()) j["location"] = c.location;
    if (!c.stack.empty()) j["stack"] = c.stack;
    return j;
}

EventLog parse_event_lines(const std::string& text) {
    EventLog log;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        try {
            const auto j = nlohmann::json::parse(line);
            const std::string event = j.at("event").get<std::string>();
            if (event == "start") {
                log.starts.push_back({j.at("pid").get<std::uint32_t>(), j.at("t_ns").get<std::int64_t>(),
                                      value_or<std::string>(j, "cupti", ""),
                                      value_or<std::string>(j, "error", "")});
            } else if (event == "call") {
                PinCall c;
                c.api = j.at("api").get<std::string>();
                c.pid = j.at("pid").get<std::uint32_t>();
                c.tid = value_or<std::uint64_t>(j, "tid", 0);
                c.t_ns = j.at("t_ns").get<std::int64_t>();
                c.duration_ns = value_or<std::int64_t>(j, "duration_ns", 0);
                c.callback_ns = value_or<std::int64_t>(j, "callback_ns", 0);
                c.bytes = value_or<std::uint64_t>(j, "bytes", 0);
                c.flags = value_or<std::uint64_t>(j, "flags", 0);
                c.address = value_or<std::uint64_t>(j, "address", 0);
                c.pool = value_or<std::uint64_t>(j, "pool", 0);
                if (const auto it = j.find("pool_reserved"); it != j.end()) {
                    c.pool_reserved = it->get<std::uint64_t>();
                }
                c.device = value_or<int>(j, "device", -1);
                c.location = value_or<std::string>(j, "location", "");
                c.result = value_or<int>(j, "result", 0);
                c.result_name = value_or<std::string>(j, "result_name", "");
                c.stack = value_or<std::vector<std::string>>(j, "stack", {});
                log.calls.push_back(std::move(c));
            } else {
                ++log.unreadable_lines;
            }
        } catch (const nlohmann::json::exception&) {
            ++log.unreadable_lines;
        }
    }
    return log;
}

}  // namespace pinbench::trace
