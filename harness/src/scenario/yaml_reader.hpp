// The YAML reading that scenario files (scenario_file.cpp) and replay scripts
// (replay/replay_script.cpp) share: errors located FILE:LINE:COL at the offending node, one
// document of UTF-8 text, mapping entries without duplicate keys, and one meaning of "an
// integer" and "a number" (a plain, unquoted, decimal scalar; a number is finite).
// Private to the harness. How a value is then judged, and worded, is the caller's.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pinbench/platform/atomic_file.hpp"

namespace pinbench {

// One mapping entry. An empty value ("key:" and nothing) is located at its key: yaml-cpp marks
// it at the start of the next token, which may be lines away.
struct YamlField {
    std::string key;
    YAML::Node key_node;
    YAML::Node value;
    YAML::Mark value_mark() const { return value.IsNull() ? key_node.Mark() : value.Mark(); }
};

// What a document's aliases may make of it (docs/scenario-format.md, "Limits"): yaml-cpp shares an
// anchored node among its aliases, but every reader that walks the tree walks each alias in
// full, so 9,000 aliases of one 100 kB string (a 136 kB file) took 2.6 GB, and nested aliases
// ("billion laughs") more. Counted while the text is parsed, before any tree is built: the
// aliases, and the document as it reads with every alias replaced by what it names, in nodes and
// in bytes of text (no more than a scenario file may hold: input_limit::text).
inline constexpr std::size_t max_yaml_aliases = 1000;
inline constexpr std::uint64_t max_yaml_expanded_nodes = 1'000'000;
inline constexpr std::uint64_t max_yaml_expanded_bytes = input_limit::text;

// Why a scalar is not the integer or number asked for.
enum class ScalarFault { none, not_scalar, quoted, malformed, out_of_range };

template <typename T>
struct ParsedScalar {
    T value{};
    ScalarFault fault = ScalarFault::none;
    bool ok() const { return fault == ScalarFault::none; }
};

// Plain (unquoted, untagged) scalars are the only ones YAML would read as numbers.
inline bool is_plain(const YAML::Node& node) { return node.Tag() == "?"; }

ParsedScalar<long long> integer_scalar(const YAML::Node& node);
ParsedScalar<double> number_scalar(const YAML::Node& node);  // finite: .nan and .inf are malformed

// How a node reads in a message: "a list", "a mapping", 'text', "no value".
std::string node_kind(const YAML::Node& node);
std::string in_quotes(std::string_view text);

class YamlReader {
public:
    // `file` names the input in every message; `what` is what it is ("a scenario file").
    YamlReader(std::string file, std::string what) : file_(std::move(file)), what_(std::move(what)) {}

    const std::string& file() const { return file_; }

    // Null marks (-1, synthesized nodes) fall back to 1:1. Quoted input may hold control
    // characters or invalid UTF-8: escaped, so the error stays one line.
    [[noreturn]] void fail(const YAML::Mark& mark, const std::string& message) const;
    [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const {
        fail(node.Mark(), message);
    }

    // The one document of `text` (nullopt: the text holds none). Refused, located: text that is
    // not UTF-8 (it passed `plan` and later killed `run` when written as JSON), YAML syntax
    // errors, a second document, and aliases beyond the limits above (at the alias that crossed
    // one).
    std::optional<YAML::Node> document(const std::string& text) const;

    // A mapping's entries in file order; each key a plain name, given at most once. `in` ends
    // the duplicate-key message (" in relabel", or "").
    std::vector<YamlField> fields(const YAML::Node& map, std::string_view in = "") const;

private:
    std::string file_;
    std::string what_;
};

}  // namespace pinbench
