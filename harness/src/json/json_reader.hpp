// Reading a JSON document with messages that say where the problem is:
//   "FILE: runs[3].repeats[0].status: expected a string, found number"
// The harness's one set of JSON member accessors, private to it: JsonAt for what must be there
// (the results and snapshot readers, a planned run), find_member and string_or_empty for facts
// that may be unknown (the store's keys, read from whatever environment a file records).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"

namespace pinbench::detail {

// Strict JSON, the rules of pinreport's reader (reports/pinreport/readers/strict_json.py): UTF-8 without a
// byte order mark, no duplicate key in any object, at most max_json_depth nested arrays and objects, integers
// in [-2^63, 2^64-1], finite numbers, no NaN or Infinity. Anything else throws InputError "FILE: invalid
// JSON: REASON" (syntax errors: "FILE: invalid JSON at byte N: ..."). Both readers test against
// harness/tests/fixtures/json-validity. (strict_json.cpp)
inline constexpr std::size_t max_json_depth = 64;
nlohmann::json parse_strict_json(std::string_view text, const std::string& file);

// UTF-8 as Python's strict decoder reads it (pinbench/vocabulary/terminal_text.hpp): the offset of the
// first byte that starts no well-formed sequence (npos: the text is valid UTF-8).
using pinbench::utf8_sequence_length;
std::size_t first_invalid_utf8(std::string_view s);
// The text with control characters and invalid UTF-8 escaped, so that an error message quoting
// input stays one line a terminal prints as it is: terminal_text (pinbench/vocabulary/terminal_text.hpp).
inline std::string one_line(std::string_view s) { return terminal_text(s); }

// A JSON value plus its file and path. Every accessor checks the type and throws InputError
// naming both; nothing is defaulted silently.
class JsonAt {
public:
    JsonAt(const nlohmann::json& value, std::string file, std::string path)
        : value_(&value), file_(std::move(file)), path_(std::move(path)) {}

    const nlohmann::json& json() const { return *value_; }
    const std::string& file() const { return file_; }
    const std::string& path() const { return path_; }

    [[noreturn]] void fail(const std::string& what) const { throw InputError(prefix() + what); }

    // "FILE: PATH: " (or "PATH: " without a file), for messages built elsewhere.
    std::string prefix() const {
        const std::string where = path_.empty() ? std::string("(document)") : path_;
        return file_.empty() ? where + ": " : file_ + ": " + where + ": ";
    }

    bool has(std::string_view key) const { return value_->is_object() && value_->contains(key); }

    // A required member of an object.
    JsonAt field(std::string_view key) const {
        require_object();
        const auto it = value_->find(key);
        if (it == value_->end()) JsonAt(*value_, file_, child_path(key)).fail("missing required field");
        return {*it, file_, child_path(key)};
    }
    // An optional member of an object: nothing when absent.
    std::optional<JsonAt> find(std::string_view key) const {
        require_object();
        const auto it = value_->find(key);
        if (it == value_->end()) return std::nullopt;
        return JsonAt(*it, file_, child_path(key));
    }

    JsonAt element(std::size_t i) const {
        return {value_->at(i), file_, path_ + "[" + std::to_string(i) + "]"};
    }

    void require_object() const {
        if (!value_->is_object()) fail("expected an object, found " + type());
    }
    void require_array() const {
        if (!value_->is_array()) fail("expected an array, found " + type());
    }

    std::string string() const {
        if (!value_->is_string()) fail("expected a string, found " + type());
        return value_->get<std::string>();
    }
    bool boolean() const {
        if (!value_->is_boolean()) fail("expected true or false, found " + type());
        return value_->get<bool>();
    }
    std::int64_t integer() const {
        if (value_->is_number_unsigned()) {
            const auto u = value_->get<std::uint64_t>();
            if (u > static_cast<std::uint64_t>(INT64_MAX)) fail("integer out of range");
            return static_cast<std::int64_t>(u);
        }
        if (!value_->is_number_integer()) fail("expected an integer, found " + type());
        return value_->get<std::int64_t>();
    }
    // A JSON integer (not 1.0, not "1") in [min, max].
    std::uint64_t unsigned_in(std::uint64_t min, std::uint64_t max) const {
        if (!value_->is_number_integer()) fail("expected an integer, found " + type());
        const bool negative = !value_->is_number_unsigned() && value_->get<std::int64_t>() < 0;
        const auto u = value_->get<std::uint64_t>();
        if (negative || u < min || u > max) {
            fail("out of range: " + value_->dump() + " (expected " + std::to_string(min) + " to " +
                 std::to_string(max) + ")");
        }
        return u;
    }
    double number() const {
        if (!value_->is_number()) fail("expected a number, found " + type());
        return value_->get<double>();
    }

    // Calls f(key, JsonAt) for each member of an object, in key order.
    template <class F>
    void for_each_member(F&& f) const {
        require_object();
        for (auto it = value_->begin(); it != value_->end(); ++it) {
            f(it.key(), JsonAt(it.value(), file_, child_path(it.key())));
        }
    }
    // Calls f(JsonAt) for each element of an array, in order.
    template <class F>
    void for_each_element(F&& f) const {
        require_array();
        for (std::size_t i = 0; i < value_->size(); ++i) f(element(i));
    }

    std::string type() const {
        if (value_->is_number_integer()) return "integer";
        return value_->type_name();
    }

private:
    // Plain names join with '.', others (probe keys contain dots) are quoted: readings["cuda.free"].
    std::string child_path(std::string_view key) const {
        bool plain = !key.empty();
        for (char c : key) {
            const bool ok =
                (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
            plain = plain && ok;
        }
        if (!plain) return path_ + "[" + nlohmann::json(std::string(key)).dump() + "]";
        return path_.empty() ? std::string(key) : path_ + "." + std::string(key);
    }

    const nlohmann::json* value_;
    std::string file_;
    std::string path_;
};

// Facts that may be unknown: the member when `object` is an object holding `key`, else nullptr;
// its string, else "" (absent, null or not a string). Nothing is refused: the caller says
// "unknown".
inline const nlohmann::json* find_member(const nlohmann::json& object, std::string_view key) {
    if (!object.is_object()) return nullptr;
    const auto it = object.find(key);
    return it == object.end() ? nullptr : &*it;
}
inline std::string string_or_empty(const nlohmann::json& object, std::string_view key) {
    const nlohmann::json* value = find_member(object, key);
    return value && value->is_string() ? value->get<std::string>() : std::string();
}

}  // namespace pinbench::detail
