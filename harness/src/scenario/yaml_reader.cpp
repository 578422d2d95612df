// The YAML reading shared by scenario files and replay scripts (yaml_reader.hpp).
#include "scenario/yaml_reader.hpp"

#include <yaml-cpp/anchor.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <sstream>
#include <system_error>
#include <unordered_map>
#include <unordered_set>

#include "json/json_reader.hpp"
#include "pinbench/vocabulary/errors.hpp"

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

// Counts, event by event, the aliases and the size of the expanded document (an alias counts as
// all of what it names): its nodes, and the bytes of its scalars (keys included). Stops the parse
// at the first event over a limit. Memory: one size per anchor and per open collection; the text
// is never expanded.
class AliasBudget : public YAML::EventHandler {
public:
    struct Exceeded {
        YAML::Mark mark;
        std::string message;
    };

    void OnDocumentStart(const YAML::Mark&) override {}
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor, 0); }
    void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  const std::string& value) override {
        leaf(mark, anchor, value.size());
    }
    void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
        if (++aliases_ > max_yaml_aliases) {
            throw Exceeded{mark, "more than " + std::to_string(max_yaml_aliases) +
                                     " aliases; a document may hold at most " +
                                     std::to_string(max_yaml_aliases)};
        }
        const auto it = sizes_.find(anchor);
        add(mark, it == sizes_.end() ? Size{1, 0} : it->second);
    }
    void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                         YAML::EmitterStyle::value) override {
        open(mark, anchor);
    }
    void OnSequenceEnd() override { close(); }
    void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                    YAML::EmitterStyle::value) override {
        open(mark, anchor);
    }
    void OnMapEnd() override { close(); }

private:
    struct Size {
        std::uint64_t nodes = 0;
        std::uint64_t bytes = 0;
    };

    void add(const YAML::Mark& mark, Size more) {
        // Each addition is at most the size so far (or one scalar's bytes): no overflow.
        size_.nodes += more.nodes;
        size_.bytes += more.bytes;
        if (size_.nodes > max_yaml_expanded_nodes) {
            throw Exceeded{mark,
                           "the document expands to more than " + std::to_string(max_yaml_expanded_nodes) +
                               " nodes (each alias counts as all of what it names); a document may hold "
                               "at most " +
                               std::to_string(max_yaml_expanded_nodes)};
        }
        if (size_.bytes > max_yaml_expanded_bytes) {
            throw Exceeded{mark, "the document expands to more than " +
                                     std::to_string(max_yaml_expanded_bytes) +
                                     " bytes of text (each alias counts as all of what it names); a document "
                                     "may expand to at most the size a file may have"};
        }
    }
    void leaf(const YAML::Mark& mark, YAML::anchor_t anchor, std::size_t bytes) {
        add(mark, {1, bytes});
        if (anchor != YAML::NullAnchor) sizes_[anchor] = {1, bytes};
    }
    void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
        open_.push_back({size_, anchor});
        add(mark, {1, 0});
    }
    void close() {
        const auto [before, anchor] = open_.back();
        open_.pop_back();
        if (anchor != YAML::NullAnchor) {
            sizes_[anchor] = {size_.nodes - before.nodes, size_.bytes - before.bytes};
        }
    }

    std::size_t aliases_ = 0;
    Size size_;
    std::unordered_map<YAML::anchor_t, Size> sizes_;     // expanded size of each anchored node
    std::vector<std::pair<Size, YAML::anchor_t>> open_;  // open collections: size at start, anchor
};

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
        std::istringstream stream(text);
        YAML::Parser parser(stream);
        AliasBudget budget;
        while (parser.HandleNextDocument(budget)) {
        }
        docs = YAML::LoadAll(text);
    } catch (const AliasBudget::Exceeded& e) {
        fail(e.mark, e.message);
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
