// Strict JSON for every results file pinbench reads: the rules of pinreport's reader
// (reports/pinreport/readers/strict_json.py), so that what `pinbench store add` stores pinreport can read.
// Both readers test against harness/tests/fixtures/json-validity (expected.tsv).
#include <cmath>
#include <string>
#include <unordered_set>
#include <vector>

#include "json/json_reader.hpp"
#include "pinbench/vocabulary/errors.hpp"

namespace pinbench::detail {

namespace {

using nlohmann::json;

std::string short_token(const std::string& s) { return s.size() <= 40 ? s : s.substr(0, 37) + "..."; }

std::string cleaned(const std::string& what) {
    const auto pos = what.find("] ");  // nlohmann's "[json.exception.parse_error.101] "
    return pos == std::string::npos ? what : what.substr(pos + 2);
}

// Builds the document through nlohmann's own DOM builder and refuses, as it goes, what strict
// JSON does not allow. The first refusal stops the parse.
class StrictSax {
public:
    StrictSax(json& result, std::string_view text) : dom_(result, false), text_(text) {}

    bool null() { return dom_.null(); }
    bool boolean(bool v) { return dom_.boolean(v); }
    bool number_integer(json::number_integer_t v) { return dom_.number_integer(v); }
    bool number_unsigned(json::number_unsigned_t v) { return dom_.number_unsigned(v); }
    bool number_float(json::number_float_t v, const std::string& literal) {
        // An integer literal outside [-2^63, 2^64-1] reaches here as a double: refused, as in Python.
        if (literal.find_first_of(".eE") == std::string::npos) {
            return refuse("number out of range: " + short_token(literal) +
                          " (integers must lie in [-2^63, 2^64-1])");
        }
        if (!std::isfinite(v)) {
            return refuse("number out of range: " + short_token(literal) + " (not a finite double)");
        }
        return dom_.number_float(v, literal);
    }
    bool string(std::string& v) { return dom_.string(v); }
    bool binary(json::binary_t& v) { return dom_.binary(v); }
    bool start_object(std::size_t n) {
        if (!enter()) return false;
        keys_.emplace_back();
        objects_.push_back(true);
        return dom_.start_object(n);
    }
    bool key(std::string& k) {
        if (!keys_.back().insert(k).second) {
            return refuse("duplicate key " + short_token(json(k).dump()) + " in an object");
        }
        return dom_.key(k);
    }
    bool end_object() {
        keys_.pop_back();
        objects_.pop_back();
        return dom_.end_object();
    }
    bool start_array(std::size_t n) {
        if (!enter()) return false;
        objects_.push_back(false);
        return dom_.start_array(n);
    }
    bool end_array() {
        objects_.pop_back();
        return dom_.end_array();
    }
    bool parse_error(std::size_t position, const std::string& last_token,
                     const nlohmann::detail::exception& ex) {
        // The lexer stops at the first letter of NaN or Infinity (after the '-' of -Infinity).
        const auto word_at = [&](std::size_t back, std::string_view word) {
            return position >= back && position - back < text_.size() &&
                   text_.substr(position - back, word.size()) == word;
        };
        if (word_at(2, "-Infinity")) return refuse("-Infinity is not a JSON number");
        for (std::string_view word : {"NaN", "Infinity"}) {
            if (word_at(1, word)) return refuse(std::string(word) + " is not a JSON number");
        }
        if (ex.id == 406) {
            return refuse("number out of range: " + short_token(last_token) + " (not a finite double)");
        }
        error_ = "invalid JSON at byte " + std::to_string(position) + ": " + cleaned(ex.what());
        return false;
    }

    const std::string& error() const { return error_; }

private:
    bool enter() {
        if (objects_.size() + 1 > max_json_depth) {
            return refuse("nested deeper than " + std::to_string(max_json_depth) + " levels");
        }
        return true;
    }
    bool refuse(const std::string& why) {
        error_ = "invalid JSON: " + why;
        return false;
    }

    nlohmann::detail::json_sax_dom_parser<json> dom_;
    std::string_view text_;
    std::vector<std::unordered_set<std::string>> keys_;  // one per open object
    std::vector<bool> objects_;                          // open containers: object (true) or array
    std::string error_;
};

}  // namespace

std::size_t first_invalid_utf8(std::string_view s) {
    for (std::size_t i = 0; i < s.size();) {
        const std::size_t len = utf8_sequence_length(s, i);
        if (len == 0) return i;
        i += len;
    }
    return std::string_view::npos;
}

nlohmann::json parse_strict_json(std::string_view text, const std::string& file) {
    const auto fail = [&](const std::string& why) -> void { throw InputError(file + ": " + why); };
    if (text.substr(0, 3) == "\xEF\xBB\xBF") {
        fail("invalid JSON: starts with a UTF-8 byte order mark (BOM); write it without one");
    }
    if (const std::size_t bad = first_invalid_utf8(text); bad != std::string_view::npos) {
        fail("invalid JSON: not valid UTF-8 at byte " + std::to_string(bad));
    }
    json result;
    StrictSax sax(result, text);
    const bool ok = json::sax_parse(text, &sax, json::input_format_t::json, /*strict=*/true);
    if (!ok || !sax.error().empty()) fail(sax.error().empty() ? std::string("invalid JSON") : sax.error());
    return result;
}

}  // namespace pinbench::detail
