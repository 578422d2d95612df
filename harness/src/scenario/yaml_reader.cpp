// The YAML reading shared by scenario files and replay scripts (yaml_reader.hpp).
#include "scenario/yaml_reader.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <system_error>
#include <unordered_set>

#include "json/json_reader.hpp"
#include "pinbench/errors.hpp"

namespace pinbench {

namespace {

template <typename T>
ParsedScalar<T> parse_plain(const YAML::Node& node) {
    ParsedScalar<T> out;
    if (!node.IsScalar()) {
        out.fault = ScalarFault::not_scalar;
        return out;
    }
    if (!is_plain(node)) {
        out.fault = ScalarFault::quoted;
        return out;
    }
    const std::string& s = node.Scalar();
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out.value);
    if (ec == std::errc::result_out_of_range) {
        out.fault = ScalarFault::out_of_range;
    } else if (ec != std::errc() || end != s.data() + s.size()) {
        out.fault = ScalarFault::malformed;
    }
    return out;
}

}  // namespace

ParsedScalar<long long> integer_scalar(const YAML::Node& node) { return parse_plain<long long>(node); }

ParsedScalar<double> number_scalar(const YAML::Node& node) {
    ParsedScalar<double> out = parse_plain<double>(node);
    if (out.ok() && !std::isfinite(out.value)) {
        out.fault = ScalarFault::malformed;  // from_chars reads "inf" and "nan"
    }
    if (out.fault == ScalarFault::out_of_range) {
        out.fault = ScalarFault::malformed;  // 1e999 is no finite number either
    }
    return out;
}

std::string in_quotes(std::string_view text) { return "'" + std::string(text) + "'"; }

std::string node_kind(const YAML::Node& n) {
    switch (n.Type()) {
        case YAML::NodeType::Sequence:
            return "a list";
        case YAML::NodeType::Map:
            return "a mapping";
        case YAML::NodeType::Scalar:
            return in_quotes(n.Scalar());
        default:
            return "no value";
    }
}

void YamlReader::fail(const YAML::Mark& m, const std::string& message) const {
    throw InputError(file_, std::max(m.line, 0) + 1, std::max(m.column, 0) + 1, detail::one_line(message));
}

std::optional<YAML::Node> YamlReader::document(const std::string& text) const {
    if (const std::size_t bad = detail::first_invalid_utf8(text); bad != std::string::npos) {
        YAML::Mark m;
        m.line =
            static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(bad), '\n'));
        const std::size_t line_start = text.rfind('\n', bad == 0 ? 0 : bad - 1);
        m.column = static_cast<int>(bad - (line_start == std::string::npos || bad == 0 ? 0 : line_start + 1));
        static constexpr char hex[] = "0123456789abcdef";
        const auto c = static_cast<unsigned char>(text[bad]);
        fail(m, std::string("not valid UTF-8 (byte 0x") + hex[c >> 4] + hex[c & 0xF] + "); " + what_ +
                    " is UTF-8 text");
    }
    std::vector<YAML::Node> docs;
    try {
        docs = YAML::LoadAll(text);
    } catch (const YAML::Exception& e) {
        fail(e.mark, "YAML syntax error: " + e.msg);
    }
    if (docs.empty()) {
        return std::nullopt;
    }
    if (docs.size() > 1) {
        fail(docs[1].Mark(), "more than one YAML document; " + what_ + " holds one");
    }
    return docs[0];
}

std::vector<YamlField> YamlReader::fields(const YAML::Node& map, std::string_view in) const {
    std::vector<YamlField> out;
    std::unordered_set<std::string> seen;  // linear: 80k keys took 15 s with a scan per key
    for (auto it = map.begin(); it != map.end(); ++it) {
        if (!it->first.IsScalar()) {
            fail(it->first.Mark(), "keys must be plain names, got " + node_kind(it->first));
        }
        YamlField f{it->first.Scalar(), it->first, it->second};
        if (!seen.insert(f.key).second) {
            fail(f.key_node.Mark(), "duplicate key " + in_quotes(f.key) + std::string(in));
        }
        out.push_back(std::move(f));
    }
    return out;
}

}  // namespace pinbench
