// The validator of json/json_schema.hpp: the keywords our schemas use, each checked in one
// function below, and the embedded schemas (generated/json/embedded_schemas.hpp, made by
// harness/CMakeLists.txt from reports/pinreport/data/*.schema.json).
#include "json/json_schema.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

#include "json/embedded_schemas.hpp"
#include "json/json_reader.hpp"
#include "pinbench/vocabulary/errors.hpp"

namespace pinbench::detail {

using nlohmann::json;

// Numbers are compared exactly: an integer of 64 bits and a double both fit a long double's
// 64-bit mantissa (x86-64 GCC and Clang, mingw-w64). 2^64-1 against 2^64 is then not "equal".
static_assert(std::numeric_limits<long double>::digits >= 64,
              "json_schema.cpp compares 64-bit integers with doubles as long double");

namespace {

// What a schema object may hold: the keywords checked below, and the annotations.
const std::set<std::string, std::less<>> kKeywords = {
    "type",
    "const",
    "enum",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "maxLength",
    "minLength",
    "pattern",
    "properties",
    "required",
    "additionalProperties",
    "propertyNames",
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "oneOf",
    "anyOf",
    "allOf",
    "if",
    "then",
    "else",
    "$ref",
    "$defs",
    "$schema",
    "$id",
    "title",
    "description",
    "$comment",
};

long double as_long_double(const json& n) {
    if (n.is_number_unsigned()) return static_cast<long double>(n.get<std::uint64_t>());
    if (n.is_number_integer()) return static_cast<long double>(n.get<std::int64_t>());
    return static_cast<long double>(n.get<double>());
}

// A value as a message quotes it: short, one line, terminal-safe.
std::string shown(const json& value) {
    std::string text = value.dump();
    if (text.size() > 40) text = text.substr(0, 37) + "...";
    return one_line(text);
}

// Characters as Python's len() counts them: the UTF-8 sequences (the strict parser has checked
// the encoding).
std::size_t characters(const std::string& s) {
    return static_cast<std::size_t>(std::count_if(
        s.begin(), s.end(), [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; }));
}

std::string with_article(const std::string& type) {
    if (type == "integer" || type == "object" || type == "array") return "an " + type;
    if (type == "null") return "null";
    if (type == "boolean") return "true or false";
    return "a " + type;
}

bool has_type(const json& value, const std::string& type) {
    if (type == "null") return value.is_null();
    if (type == "boolean") return value.is_boolean();
    if (type == "object") return value.is_object();
    if (type == "array") return value.is_array();
    if (type == "string") return value.is_string();
    if (type == "number") return value.is_number();
    if (type == "integer") return value.is_number_integer();  // 1, not 1.0 (json_schema.hpp)
    throw std::logic_error("json_schema: unknown type \"" + type + "\"");
}

// A violation, and whether it says only that the value's type is none of those expected (for
// picking the most telling one among the alternatives of a oneOf).
struct Found {
    SchemaViolation violation;
    std::vector<std::string> expected_types;  // non-empty: a type mismatch, these were expected
};

}  // namespace

// The schemas by file name and by $id, with every pattern compiled once.
class JsonSchemaSet {
public:
    const json& add(const std::string& name, json root) {
        check_keywords(root, name);
        auto owned = std::make_unique<json>(std::move(root));
        const json& added = *owned;
        if (added.is_object() && added.contains("$id")) ids_[added.at("$id").get<std::string>()] = &added;
        compile_patterns(added);
        roots_[name] = std::move(owned);
        return added;
    }

    const json* root(std::string_view name) const {
        const auto it = roots_.find(name);
        return it == roots_.end() ? nullptr : it->second.get();
    }

    std::optional<Found> check(const json& schema, const json& root, const json& value,
                               const std::string& path) const;

    JsonSchema make(const json& root, const json& node) const { return JsonSchema(*this, root, node); }

private:
    // Throws std::logic_error naming a keyword this validator does not understand.
    static void check_keywords(const json& schema, const std::string& where) {
        if (schema.is_boolean()) return;
        if (!schema.is_object()) throw std::logic_error("json_schema: " + where + " is not a schema");
        for (const auto& [key, value] : schema.items()) {
            if (!kKeywords.contains(key)) {
                throw std::logic_error("json_schema: " + where + ": keyword \"" + key +
                                       "\" is not understood by pinbench's schema checker");
            }
            const std::string here = where + "/" + key;
            if (key == "properties" || key == "$defs") {
                for (const auto& [name, sub] : value.items()) check_keywords(sub, here + "/" + name);
            } else if (key == "prefixItems" || key == "oneOf" || key == "anyOf" || key == "allOf") {
                for (std::size_t i = 0; i < value.size(); ++i) {
                    check_keywords(value[i], here + "/" + std::to_string(i));
                }
            } else if (key == "additionalProperties" || key == "propertyNames" || key == "items" ||
                       key == "if" || key == "then" || key == "else") {
                check_keywords(value, here);
            }
        }
    }

    void compile_patterns(const json& node) {
        if (node.is_object()) {
            for (const auto& [key, value] : node.items()) {
                if (key == "pattern" && value.is_string() && !patterns_.contains(value.get<std::string>())) {
                    patterns_.emplace(value.get<std::string>(), std::regex(value.get<std::string>()));
                }
                compile_patterns(value);
            }
        } else if (node.is_array()) {
            for (const json& v : node) compile_patterns(v);
        }
    }

    const std::regex& pattern(const std::string& text) const {
        const auto it = patterns_.find(text);
        if (it == patterns_.end()) throw std::logic_error("json_schema: pattern not compiled: " + text);
        return it->second;
    }

    // The schema a $ref names, and the root its own $refs resolve in.
    std::pair<const json*, const json*> resolve(const std::string& ref, const json& root) const {
        const auto hash = ref.find('#');
        const std::string base = ref.substr(0, hash);
        const json* doc = &root;
        if (!base.empty()) {
            const auto it = ids_.find(base);
            if (it == ids_.end()) throw std::logic_error("json_schema: $ref to an unknown schema: " + ref);
            doc = it->second;
        }
        const std::string pointer = hash == std::string::npos ? "" : ref.substr(hash + 1);
        try {
            return {&doc->at(json::json_pointer(pointer)), doc};
        } catch (const json::exception&) {
            throw std::logic_error("json_schema: $ref names nothing: " + ref);
        }
    }

    std::optional<Found> check_number(const json& schema, const json& value, const std::string& path) const;
    std::optional<Found> check_string(const json& schema, const json& value, const std::string& path) const;
    std::optional<Found> check_object(const json& schema, const json& root, const json& value,
                                      const std::string& path) const;
    std::optional<Found> check_array(const json& schema, const json& root, const json& value,
                                     const std::string& path) const;
    std::optional<Found> check_alternatives(const json& schema, const json& root, const json& value,
                                            const std::string& path) const;

    std::map<std::string, std::unique_ptr<json>, std::less<>> roots_;
    std::map<std::string, const json*, std::less<>> ids_;
    std::map<std::string, std::regex, std::less<>> patterns_;
};

namespace {

std::optional<Found> violation(const std::string& path, std::string message) {
    return Found{SchemaViolation{path, std::move(message)}, {}};
}

}  // namespace

std::optional<Found> JsonSchemaSet::check_number(const json& schema, const json& value,
                                                 const std::string& path) const {
    const long double v = as_long_double(value);
    const auto bound = [&](const char* key) -> std::optional<long double> {
        const auto it = schema.find(key);
        if (it == schema.end()) return std::nullopt;
        return as_long_double(*it);
    };
    if (const auto b = bound("minimum"); b && v < *b) {
        return violation(path, shown(value) + " is less than the minimum of " + schema.at("minimum").dump());
    }
    if (const auto b = bound("exclusiveMinimum"); b && v <= *b) {
        return violation(path, shown(value) + " is less than or equal to the minimum of " +
                                   schema.at("exclusiveMinimum").dump());
    }
    if (const auto b = bound("maximum"); b && v > *b) {
        return violation(path,
                         shown(value) + " is greater than the maximum of " + schema.at("maximum").dump());
    }
    if (const auto b = bound("exclusiveMaximum"); b && v >= *b) {
        return violation(path, shown(value) + " is greater than or equal to the maximum of " +
                                   schema.at("exclusiveMaximum").dump());
    }
    return std::nullopt;
}

std::optional<Found> JsonSchemaSet::check_string(const json& schema, const json& value,
                                                 const std::string& path) const {
    const std::string& s = value.get_ref<const std::string&>();
    if (const auto it = schema.find("maxLength"); it != schema.end()) {
        const std::size_t n = characters(s);
        if (n > it->get<std::size_t>()) {
            return violation(path, "a string of " + std::to_string(n) +
                                       " characters, longer than the maximum of " + it->dump());
        }
    }
    if (const auto it = schema.find("minLength"); it != schema.end()) {
        if (characters(s) < it->get<std::size_t>()) {
            return violation(path,
                             shown(value) + " is shorter than the minimum of " + it->dump() + " characters");
        }
    }
    if (const auto it = schema.find("pattern"); it != schema.end()) {
        if (!std::regex_search(s, pattern(it->get<std::string>()))) {
            return violation(path, shown(value) + " does not match " + one_line(it->get<std::string>()));
        }
    }
    return std::nullopt;
}

std::optional<Found> JsonSchemaSet::check_object(const json& schema, const json& root, const json& value,
                                                 const std::string& path) const {
    if (const auto it = schema.find("required"); it != schema.end()) {
        for (const json& key : *it) {
            if (!value.contains(key.get<std::string>())) {
                return violation(child_json_path(path, key.get<std::string>()), "missing required field");
            }
        }
    }
    const auto properties = schema.find("properties");
    const auto additional = schema.find("additionalProperties");
    const auto names = schema.find("propertyNames");
    for (const auto& [key, member] : value.items()) {
        const std::string at = child_json_path(path, key);
        if (names != schema.end()) {
            if (auto f = check(*names, root, json(key), at)) {
                f->violation.message = "the name " + f->violation.message;
                return f;
            }
        }
        if (properties != schema.end() && properties->contains(key)) {
            if (auto f = check(properties->at(key), root, member, at)) return f;
        } else if (additional != schema.end()) {
            if (additional->is_boolean() && !additional->get<bool>()) {
                return violation(at, "unexpected field");
            }
            if (auto f = check(*additional, root, member, at)) return f;
        }
    }
    return std::nullopt;
}

std::optional<Found> JsonSchemaSet::check_array(const json& schema, const json& root, const json& value,
                                                const std::string& path) const {
    const std::size_t n = value.size();
    if (const auto it = schema.find("minItems"); it != schema.end() && n < it->get<std::size_t>()) {
        return violation(path,
                         "holds " + std::to_string(n) + " items, fewer than the minimum of " + it->dump());
    }
    if (const auto it = schema.find("maxItems"); it != schema.end() && n > it->get<std::size_t>()) {
        return violation(path,
                         "holds " + std::to_string(n) + " items, more than the maximum of " + it->dump());
    }
    std::size_t first = 0;
    if (const auto it = schema.find("prefixItems"); it != schema.end()) {
        for (; first < std::min(n, it->size()); ++first) {
            if (auto f = check((*it)[first], root, value[first], path + "[" + std::to_string(first) + "]")) {
                return f;
            }
        }
    }
    if (const auto it = schema.find("items"); it != schema.end()) {
        for (std::size_t i = first; i < n; ++i) {
            const std::string at = path + "[" + std::to_string(i) + "]";
            if (it->is_boolean() && !it->get<bool>()) return violation(at, "unexpected item");
            if (auto f = check(*it, root, value[i], at)) return f;
        }
    }
    return std::nullopt;
}

// oneOf and anyOf. When every alternative fails, the violation that tells most: one past the
// value's type (its path deepest, else the first), else "expected A or B, found C".
std::optional<Found> JsonSchemaSet::check_alternatives(const json& schema, const json& root,
                                                       const json& value, const std::string& path) const {
    for (const char* key : {"anyOf", "oneOf"}) {
        const auto it = schema.find(key);
        if (it == schema.end()) continue;
        std::vector<Found> failed;
        std::size_t passed = 0;
        for (const json& alternative : *it) {
            if (auto f = check(alternative, root, value, path)) {
                failed.push_back(std::move(*f));
            } else {
                ++passed;
            }
        }
        if (std::string(key) == "oneOf" && passed > 1) {
            return violation(path, shown(value) + " matches more than one of the alternatives");
        }
        if (passed > 0) continue;
        // The deepest (it passed the value's type and went on), else one past the type at the
        // value itself (a bound), else the types together.
        const Found* best = nullptr;
        for (const Found& f : failed) {
            if (f.violation.path.size() > path.size() &&
                (best == nullptr || f.violation.path.size() > best->violation.path.size())) {
                best = &f;
            }
        }
        for (const Found& f : failed) {
            if (best == nullptr && f.expected_types.empty()) best = &f;
        }
        if (best != nullptr) return *best;
        Found merged{{path, ""}, {}};
        for (const Found& f : failed) {
            for (const std::string& t : f.expected_types) {
                if (std::find(merged.expected_types.begin(), merged.expected_types.end(), t) ==
                    merged.expected_types.end()) {
                    merged.expected_types.push_back(t);
                }
            }
        }
        std::string expected;
        for (std::size_t i = 0; i < merged.expected_types.size(); ++i) {
            expected += (i == 0 ? "" : (i + 1 == merged.expected_types.size() ? " or " : ", ")) +
                        with_article(merged.expected_types[i]);
        }
        merged.violation.message = "expected " + expected + ", found " + json_type_name(value) +
                                   (value.is_number_float() ? " " + shown(value) : std::string());
        return merged;
    }
    return std::nullopt;
}

std::optional<Found> JsonSchemaSet::check(const json& schema, const json& root, const json& value,
                                          const std::string& path) const {
    if (schema.is_boolean()) {
        if (schema.get<bool>()) return std::nullopt;
        return violation(path, "not allowed here");
    }
    if (const auto it = schema.find("$ref"); it != schema.end()) {
        const auto [target, target_root] = resolve(it->get<std::string>(), root);
        if (auto f = check(*target, *target_root, value, path)) return f;
    }
    if (const auto it = schema.find("type"); it != schema.end()) {
        std::vector<std::string> types;
        if (it->is_array()) {
            for (const json& t : *it) types.push_back(t.get<std::string>());
        } else {
            types.push_back(it->get<std::string>());
        }
        if (std::none_of(types.begin(), types.end(),
                         [&](const std::string& t) { return has_type(value, t); })) {
            std::string expected;
            for (std::size_t i = 0; i < types.size(); ++i) {
                expected += (i == 0 ? "" : " or ") + with_article(types[i]);
            }
            const std::string found =
                json_type_name(value) + (value.is_number_float() ? " " + shown(value) : std::string());
            return Found{{path, "expected " + expected + ", found " + found}, types};
        }
    }
    if (const auto it = schema.find("const"); it != schema.end() && value != *it) {
        return violation(path, shown(value) + " is not " + shown(*it));
    }
    if (const auto it = schema.find("enum"); it != schema.end()) {
        if (std::find(it->begin(), it->end(), value) == it->end()) {
            std::string expected;  // "ok, waived or failed" (an enum of our schemas is short)
            for (std::size_t i = 0; i < it->size(); ++i) {
                const json& e = (*it)[i];
                expected += (i == 0 ? "" : (i + 1 == it->size() ? " or " : ", ")) +
                            one_line(e.is_string() ? e.get<std::string>() : e.dump());
            }
            return violation(path, "unknown value " + shown(value) + " (expected " + expected + ")");
        }
    }
    if (value.is_number()) {
        if (auto f = check_number(schema, value, path)) return f;
    } else if (value.is_string()) {
        if (auto f = check_string(schema, value, path)) return f;
    } else if (value.is_object()) {
        if (auto f = check_object(schema, root, value, path)) return f;
    } else if (value.is_array()) {
        if (auto f = check_array(schema, root, value, path)) return f;
    }
    if (const auto it = schema.find("allOf"); it != schema.end()) {
        for (const json& part : *it) {
            if (auto f = check(part, root, value, path)) return f;
        }
    }
    if (auto f = check_alternatives(schema, root, value, path)) return f;
    if (const auto it = schema.find("if"); it != schema.end()) {
        const bool holds = !check(*it, root, value, path).has_value();
        const auto branch = schema.find(holds ? "then" : "else");
        if (branch != schema.end()) {
            if (auto f = check(*branch, root, value, path)) return f;
        }
    }
    return std::nullopt;
}

namespace {

JsonSchemaSet& embedded_set() {
    static JsonSchemaSet* set = [] {
        auto* s = new JsonSchemaSet();  // lives as long as the program: every JsonSchema points into it
        for (const auto& [name, text] : kEmbeddedSchemas) s->add(std::string(name), json::parse(text));
        return s;
    }();
    return *set;
}

}  // namespace

std::optional<SchemaViolation> JsonSchema::first_violation(const nlohmann::json& value,
                                                           const std::string& path) const {
    if (auto f = set_->check(*node_, *root_, value, path)) return std::move(f->violation);
    return std::nullopt;
}

void JsonSchema::validate(const nlohmann::json& value, const std::string& file,
                          const std::string& path) const {
    if (const auto v = first_violation(value, path)) {
        const std::string where = v->path.empty() ? std::string("(document)") : v->path;
        throw InputError((file.empty() ? std::string() : file + ": ") + where + ": " + v->message);
    }
}

const nlohmann::json& JsonSchema::at(std::string_view pointer) const {
    try {
        return node_->at(nlohmann::json::json_pointer(std::string(pointer)));
    } catch (const nlohmann::json::exception&) {
        throw std::logic_error("json_schema: the schema has nothing at " + std::string(pointer));
    }
}

JsonSchema JsonSchema::def(std::string_view name) const {
    try {
        return set_->make(*root_, root_->at("$defs").at(std::string(name)));
    } catch (const nlohmann::json::exception&) {
        throw std::logic_error("json_schema: no $defs/" + std::string(name));
    }
}

const JsonSchema& embedded_schema(std::string_view file_name) {
    static std::map<std::string, JsonSchema, std::less<>>* schemas = [] {
        auto* m = new std::map<std::string, JsonSchema, std::less<>>();
        JsonSchemaSet& set = embedded_set();
        for (const auto& [name, text] : kEmbeddedSchemas) {
            const json* root = set.root(name);
            m->emplace(std::string(name), set.make(*root, *root));
        }
        return m;
    }();
    const auto it = schemas->find(file_name);
    if (it == schemas->end()) {
        throw std::logic_error("json_schema: no embedded schema " + std::string(file_name));
    }
    return it->second;
}

JsonSchema embedded_schema_def(std::string_view file_name, std::string_view def) {
    return embedded_schema(file_name).def(def);
}

std::string_view embedded_schema_text(std::string_view file_name) {
    for (const auto& [name, text] : kEmbeddedSchemas) {
        if (name == file_name) return text;
    }
    throw std::logic_error("json_schema: no embedded schema " + std::string(file_name));
}

std::vector<std::string> embedded_schema_names() {
    std::vector<std::string> names;
    for (const auto& [name, text] : kEmbeddedSchemas) names.emplace_back(name);
    return names;
}

std::optional<SchemaViolation> first_violation_against(const json& schema, const json& value) {
    JsonSchemaSet set;
    // The embedded schemas too, for a $ref by $id.
    for (const auto& [name, text] : kEmbeddedSchemas) set.add(std::string(name), json::parse(text));
    const json& root = set.add("(test schema)", schema);
    if (auto f = set.check(root, root, value, "")) return std::move(f->violation);
    return std::nullopt;
}

}  // namespace pinbench::detail
