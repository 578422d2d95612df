// The documents' JSON Schemas, read by the harness as pinreport reads them: the schema files of
// reports/pinreport/data (results, budget, trace; docs/*.schema.json are copies), embedded at
// build time, and one validator of the keywords they use. What a schema bounds (a size never
// negative, a time finite, a string's length) is checked here and nowhere else in the harness:
// the readers take the bounds from the schema instead of typing the numbers again (STYLE.md,
// "A rule lives in one place").
//
// Only the keywords our schemas use are understood (type, const, enum, the numeric bounds,
// maxLength, pattern, properties, required, additionalProperties, propertyNames, items,
// prefixItems, minItems, maxItems, oneOf, anyOf, allOf, if/then/else, $ref to #/$defs and to
// another of the schemas by $id); a schema with any other keyword is refused when it is loaded
// (std::logic_error), so a schema never says more than the harness checks. One difference from
// JSON Schema as Python's jsonschema reads it: "integer" is an integer literal (1, not 1.0).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench::detail {

// The first place a document breaks its schema: the JSON path (as JsonAt names it:
// runs[3].plan.size_bytes, readings["cuda.free"]) and what is wrong there, in one line.
struct SchemaViolation {
    std::string path;
    std::string message;
};

class JsonSchemaSet;

// One schema, or one of its $defs, to validate documents (or parts of one) against.
class JsonSchema {
public:
    // The first violation, or nothing when `value` is valid. `path` is the JSON path of `value`
    // in its document ("" for the root), for the violation's path.
    std::optional<SchemaViolation> first_violation(const nlohmann::json& value,
                                                   const std::string& path = "") const;

    // Throws InputError "FILE: PATH: message" (the JsonAt form) unless `value` is valid.
    void validate(const nlohmann::json& value, const std::string& file, const std::string& path = "") const;

    // The schema (or $def) as written, for what reads a bound of it (the CLI's limits, tests).
    const nlohmann::json& node() const { return *node_; }

    // A value of this schema by JSON pointer ("/properties/cap/maximum"), for a bound that
    // code outside the validator needs (the CLI's limits). Throws std::logic_error when absent.
    const nlohmann::json& at(std::string_view pointer) const;

    // One of its root's $defs, to validate a part of a document against.
    JsonSchema def(std::string_view name) const;

private:
    friend class JsonSchemaSet;
    JsonSchema(const JsonSchemaSet& set, const nlohmann::json& root, const nlohmann::json& node)
        : set_(&set), root_(&root), node_(&node) {}
    const JsonSchemaSet* set_;
    const nlohmann::json* root_;
    const nlohmann::json* node_;
};

// The embedded schemas, by file name: "results.schema.json", "budget.schema.json",
// "trace.schema.json". Parsed and checked for unknown keywords once, on first use.
const JsonSchema& embedded_schema(std::string_view file_name);

// One of its $defs: embedded_schema_def("results.schema.json", "plan") is $defs/plan.
JsonSchema embedded_schema_def(std::string_view file_name, std::string_view def);

// The schema files' texts as embedded (the tests compare them with the files), and their names.
std::string_view embedded_schema_text(std::string_view file_name);
std::vector<std::string> embedded_schema_names();

// For tests: the first violation of `value` against `schema` given whole (its $refs to #/$defs
// resolve in it, others to the embedded schemas by $id). Throws std::logic_error when `schema`
// uses a keyword this validator does not understand.
std::optional<SchemaViolation> first_violation_against(const nlohmann::json& schema,
                                                       const nlohmann::json& value);

}  // namespace pinbench::detail
