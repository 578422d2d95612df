#include "pinbench/probes/snapshot.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <vector>

#include "json/json_schema.hpp"
#include "probes/snapshot_json.hpp"

namespace pinbench {

const KeyRule& key_rule() {
    static const KeyRule rule{{".free"}, {".total", ".budget"}, {"dxgi.nonlocal."}, {".shared"}};
    return rule;
}

KeyInfo describe_key(std::string_view key) {
    const KeyRule& rule = key_rule();
    const auto suffix = [&](std::string_view s) { return key.ends_with(s); };
    const auto prefix = [&](std::string_view s) { return key.starts_with(s); };
    KeyInfo info{Direction::usage, Budget::dedicated};
    if (std::ranges::any_of(rule.available_suffixes, suffix)) {
        info.direction = Direction::available;
    } else if (std::ranges::any_of(rule.fixed_suffixes, suffix)) {
        info.direction = Direction::fixed;
    }
    if (std::ranges::any_of(rule.shared_prefixes, prefix) ||
        std::ranges::any_of(rule.shared_suffixes, suffix)) {
        info.budget = Budget::shared;
    }
    return info;
}

std::optional<std::int64_t> cost_between(std::string_view key, const Reading& before, const Reading& after) {
    if (!before.available() || !after.available()) return std::nullopt;
    switch (describe_key(key).direction) {
        case Direction::usage:
            return *after.bytes - *before.bytes;
        case Direction::available:
            return *before.bytes - *after.bytes;
        case Direction::fixed:
            break;
    }
    return std::nullopt;
}

void to_json(nlohmann::json& j, const Reading& r) {
    // A probe that reads what no memory can hold (a negative or a 2^63 count of bytes) is
    // recorded as unavailable with what it read: the results schema's bound of a reading
    // ($defs/size), which every reader holds the file to.
    static const detail::JsonSchema size = detail::embedded_schema_def("results.schema.json", "size");
    if (r.available() && size.first_violation(*r.bytes)) {
        j = nlohmann::json{{"unavailable", "the probe read " + std::to_string(*r.bytes) +
                                               " bytes, outside the physical bounds of a reading (0 to " +
                                               size.at("/maximum").dump() + ")"}};
    } else if (r.available()) {
        j = *r.bytes;
    } else {
        j = nlohmann::json{{"unavailable", r.unavailable}};
    }
}

void to_json(nlohmann::json& j, const Snapshot& s) {
    nlohmann::json readings = nlohmann::json::object();
    for (const auto& [key, reading] : s.readings) readings[key] = reading;
    j = nlohmann::json{{"label", s.label},
                       {"t_ms", s.t_ms},
                       {"settle_ms", s.settle_ms},
                       {"stable", s.stable},
                       {"readings", std::move(readings)}};
    if (s.window.end_ns != 0) j["steady_ns"] = {s.window.begin_ns, s.window.stable_ns, s.window.end_ns};
}

namespace detail {

Reading reading_from(const JsonAt& at) {
    if (at.json().is_number_integer()) return Reading::of(at.integer());
    if (at.json().is_object() && at.has("unavailable")) {
        return Reading::not_available(at.field("unavailable").string());
    }
    at.fail("expected an integer (bytes) or {\"unavailable\": reason}, found " + at.type());
}

Snapshot snapshot_from(const JsonAt& at) {
    at.require_object();
    Snapshot s;
    s.label = at.field("label").string();
    s.t_ms = at.field("t_ms").number();
    s.settle_ms = at.field("settle_ms").number();
    s.stable = at.field("stable").boolean();
    if (at.has("steady_ns")) {  // results version 3
        std::vector<std::int64_t> w;
        at.field("steady_ns").for_each_element([&](const JsonAt& v) { w.push_back(v.integer()); });
        if (w.size() != 3 || w[0] > w[1] || w[1] > w[2]) {
            at.field("steady_ns").fail("expected [begin, stable, end] in increasing order");
        }
        s.window = {w[0], w[1], w[2]};
    }
    at.field("readings").for_each_member([&](const std::string& key, const JsonAt& value) {
        s.readings[key] = reading_from(value);
    });
    return s;
}

}  // namespace detail

void from_json(const nlohmann::json& j, Reading& r) {
    r = detail::reading_from(detail::JsonAt(j, "", "reading"));
}

void from_json(const nlohmann::json& j, Snapshot& s) {
    s = detail::snapshot_from(detail::JsonAt(j, "", "snapshot"));
}

}  // namespace pinbench
