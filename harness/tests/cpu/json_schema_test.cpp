// The harness's JSON Schema validator (harness/src/json/json_schema.cpp) and the bounds it reads
// from the schema files (issue 57, "Bounds in the schemas"): the keywords, exact number
// comparisons, and a seeded property test over documents within and just outside the bounds.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "json/json_reader.hpp"
#include "json/json_schema.hpp"
#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "property_runs.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

using detail::embedded_schema;
using detail::first_violation_against;
using nlohmann::json;

std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

bool valid(const json& schema, const json& value) {
    return !first_violation_against(schema, value).has_value();
}

TEST(JsonSchema, TheEmbeddedSchemasAreTheFilesPinreportReads) {
    ASSERT_EQ(detail::embedded_schema_names().size(), 3u);
    for (const std::string& name : detail::embedded_schema_names()) {
        SCOPED_TRACE(name);
        const std::string data =
            read_text(std::string(PINBENCH_SOURCE_DIR) + "/reports/pinreport/data/" + name);
        EXPECT_EQ(detail::embedded_schema_text(name), data);
        EXPECT_EQ(read_text(std::string(PINBENCH_SOURCE_DIR) + "/docs/" + name), data)
            << "docs/ keeps a copy";
        EXPECT_NO_THROW((void)embedded_schema(name));  // every keyword understood
    }
}

TEST(JsonSchema, AKeywordItDoesNotUnderstandIsRefusedWhenLoaded) {
    EXPECT_THROW((void)first_violation_against({{"type", "integer"}, {"multipleOf", 2}}, 4),
                 std::logic_error);
    EXPECT_THROW(
        (void)first_violation_against({{"properties", {{"a", {{"format", "date"}}}}}}, json::object()),
        std::logic_error);
}

TEST(JsonSchema, AnIntegerIsAnIntegerLiteral) {
    const json integer = {{"type", "integer"}};
    EXPECT_TRUE(valid(integer, 1));
    EXPECT_TRUE(valid(integer, std::numeric_limits<std::uint64_t>::max()));
    EXPECT_TRUE(valid(integer, std::numeric_limits<std::int64_t>::min()));
    EXPECT_FALSE(valid(integer, 1.0));
    EXPECT_FALSE(valid(integer, "1"));
    EXPECT_EQ(first_violation_against(integer, 1.0)->message, "expected an integer, found number 1.0");
}

TEST(JsonSchema, NumbersAreComparedExactly) {
    // 2^64 as a double against 2^64-1: greater, though a double rounds the bound up to it.
    const json below_2_64 = {{"maximum", std::numeric_limits<std::uint64_t>::max()}};
    EXPECT_TRUE(valid(below_2_64, std::numeric_limits<std::uint64_t>::max()));
    EXPECT_FALSE(valid(below_2_64, 18446744073709551616.0));
    const json int64 = {{"minimum", std::numeric_limits<std::int64_t>::min()},
                        {"maximum", 9223372036854775807LL}};
    EXPECT_FALSE(valid(int64, 9223372036854775808ULL));
    EXPECT_TRUE(valid(int64, -9223372036854775807LL - 1));
    EXPECT_FALSE(valid({{"exclusiveMinimum", 0}}, 0.0));
    EXPECT_TRUE(valid({{"exclusiveMinimum", 0}}, 5e-324));
    EXPECT_FALSE(valid({{"exclusiveMaximum", 1}}, 1));
    EXPECT_EQ(first_violation_against({{"minimum", 0}}, -1)->message, "-1 is less than the minimum of 0");
}

TEST(JsonSchema, ALengthCountsCharactersAsPythonDoes) {
    const json short_text = {{"type", "string"}, {"maxLength", 3}};
    EXPECT_TRUE(valid(short_text, "\xc3\xa9\xc3\xa9\xc3\xa9"));  // three characters, six bytes
    EXPECT_FALSE(valid(short_text, "abcd"));
    // The message gives the length, never the string (a megabyte would be one line of a megabyte).
    EXPECT_EQ(first_violation_against(short_text, std::string(1 << 20, 'x'))->message,
              "a string of 1048576 characters, longer than the maximum of 3");
}

TEST(JsonSchema, ObjectsArraysAndAlternativesNameThePathOfTheFirstProblem) {
    const json schema = {
        {"type", "object"},
        {"required", {"a"}},
        {"properties", {{"a", {{"type", "array"}, {"items", {{"$ref", "#/$defs/r"}}}}}}},
        {"additionalProperties", false},
        {"$defs",
         {{"r",
           {{"oneOf",
             {{{"type", "integer"}, {"minimum", 0}}, {{"type", "object"}, {"required", {"u"}}}}}}}}}};
    EXPECT_TRUE(valid(schema, {{"a", {1, {{"u", 1}}}}}));
    EXPECT_EQ(first_violation_against(schema, json::object())->path, "a");
    EXPECT_EQ(first_violation_against(schema, {{"a", json::array()}, {"b", 1}})->message, "unexpected field");
    const auto negative = first_violation_against(schema, {{"a", {1, -1}}});
    EXPECT_EQ(negative->path, "a[1]");
    EXPECT_EQ(negative->message, "-1 is less than the minimum of 0");
    const auto object = first_violation_against(schema, {{"a", {json::object()}}});
    EXPECT_EQ(object->path, "a[0].u");
    EXPECT_EQ(first_violation_against(schema, {{"a", {"x"}}})->message,
              "expected an integer or an object, found string");
    // A probe key with dots is quoted, as JsonAt quotes it.
    const json readings = {{"additionalProperties", {{"type", "integer"}}}};
    EXPECT_EQ(first_violation_against(readings, {{"cuda.free", "x"}})->path, "[\"cuda.free\"]");
}

TEST(JsonSchema, IfThenElseAndPatterns) {
    const json schema = {{"if", {{"required", {"k"}}, {"properties", {{"k", {{"const", 1}}}}}}},
                         {"then", {{"required", {"one"}}}},
                         {"else", {{"propertyNames", {{"pattern", "^[0-9]{1,3}$"}}}}}};
    EXPECT_FALSE(valid(schema, {{"k", 1}}));
    EXPECT_TRUE(valid(schema, {{"k", 1}, {"one", true}}));
    EXPECT_TRUE(valid(schema, {{"12", 1}}));
    EXPECT_FALSE(valid(schema, {{"1234", 1}}));
}

// The bounds of issue 57, as the schema files give them (what both readers take).
TEST(JsonSchema, TheSchemasGivePhysicalBounds) {
    const std::uint64_t tib64 = std::uint64_t{64} << 40;
    const auto& results = embedded_schema("results.schema.json");
    EXPECT_EQ(results.at("/$defs/size/maximum"), tib64);
    EXPECT_EQ(results.at("/$defs/size/minimum"), 0);
    EXPECT_EQ(results.at("/$defs/plan/properties/size_bytes/maximum"), tib64);
    EXPECT_EQ(results.at("/$defs/ms/minimum"), 0);
    EXPECT_EQ(results.at("/$defs/short_text/maxLength"), 64);
    const auto& budget = embedded_schema("budget.schema.json");
    EXPECT_EQ(budget.at("/$defs/bytes/maximum"), tib64);
    EXPECT_EQ(budget.at("/$defs/pin_size/minimum"), std::uint64_t{2} << 20);
    const auto& trace = embedded_schema("trace.schema.json");
    EXPECT_EQ(trace.at("/$defs/pid/maximum"), 4294967295u);
    // The examples of the issue: refused by the schema, as pinreport refuses them.
    const json budget_doc =
        json::parse(read_text(std::string(PINBENCH_SOURCE_DIR) + "/results/h100-budget/budget-default.json"));
    for (const auto& [pointer, value] :
         std::vector<std::pair<std::string, json>>{{"/safe_budget/bytes", 1e308},
                                                   {"/safe_budget/bytes", 9223372036854775807LL},
                                                   {"/families/0/pin_s_per_gib", -3},
                                                   {"/families/0/safe_budget", -1}}) {
        SCOPED_TRACE(pointer + " = " + value.dump());
        json doc = budget_doc;
        doc[json::json_pointer(pointer)] = value;
        EXPECT_TRUE(budget.first_violation(doc).has_value());
    }
    EXPECT_FALSE(budget.first_violation(budget_doc).has_value())
        << budget.first_violation(budget_doc)->message;
}

// ---- The property: documents within and just outside the bounds ------------------------------

// Every leaf (number or string) of a document, by JSON pointer.
void leaves(const json& value, const std::string& pointer, std::vector<std::string>& out) {
    if (value.is_object()) {
        for (const auto& [k, v] : value.items()) {
            std::string escaped;  // RFC 6901: ~ as ~0, / as ~1
            for (const char c : k) escaped += c == '~' ? "~0" : (c == '/' ? "~1" : std::string(1, c));
            leaves(v, pointer + "/" + escaped, out);
        }
    } else if (value.is_array()) {
        for (std::size_t i = 0; i < value.size(); ++i)
            leaves(value[i], pointer + "/" + std::to_string(i), out);
    } else if (value.is_number() || value.is_string()) {
        out.push_back(pointer);
    }
}

// The values a careless or hostile writer puts in a field: each side of every bound the schemas
// use, and numbers written otherwise (1.0 for 1).
std::vector<json> edge_values() {
    const std::uint64_t tib64 = std::uint64_t{64} << 40;
    std::vector<json> v = {0,
                           1,
                           -1,
                           0.0,
                           1.0,
                           -0.5,
                           2147483647,
                           2147483648LL,
                           4294967295LL,
                           4294967296LL,
                           tib64,
                           tib64 + 1,
                           -static_cast<std::int64_t>(tib64) - 1,
                           9007199254740992LL,
                           9007199254740993LL,
                           9223372036854775807LL,
                           9223372036854775808ULL,
                           std::numeric_limits<std::uint64_t>::max(),
                           std::numeric_limits<std::int64_t>::min(),
                           1e308,
                           -1e308,
                           604800,
                           604800.5,
                           31536000000.0,
                           31536000001.0,
                           1000,
                           1001};
    for (std::size_t n : {std::size_t{64}, std::size_t{65}, std::size_t{1024}, std::size_t{1025},
                          std::size_t{131072}, std::size_t{131073}}) {
        v.emplace_back(std::string(n, '7'));
    }
    return v;
}

// Every number a document holds lies within [-2^64, 2^64] and is finite: what a schema-valid
// document may print.
void expect_finite(const json& value) {
    if (value.is_number_float()) EXPECT_TRUE(std::isfinite(value.get<double>()));
    if (value.is_structured()) {
        for (const auto& v : value) expect_finite(v);
    }
}

// For documents within and just outside the schema's bounds (seeded, reproducible): the reader
// accepts one only when the schema does; what it accepts it writes back valid (no value leaves
// the bounds on the way through the upgrade); what it refuses is one line naming the field.
TEST(SchemaBoundsProperty, TheReaderAcceptsExactlyWhatTheSchemaAcceptsAndWritesItBackValid) {
    const auto& schema = embedded_schema("results.schema.json");
    const std::vector<std::string> bases = {"/results-validity/accept_base.json", "/results/valid_v1.json"};
    const std::vector<json> edges = edge_values();
    std::mt19937_64 random(57);  // seeded: a failure names its seed and case
    int accepted = 0, refused = 0;
    for (const std::string& base_name : bases) {
        const json base = json::parse(read_text(std::string(PINBENCH_FIXTURES) + base_name));
        std::vector<std::string> paths;
        leaves(base, "", paths);
        // The document's kind and version are checked before the schema (named as such).
        std::erase_if(paths, [](const std::string& p) { return p == "/schema" || p == "/schema_version"; });
        ASSERT_GT(paths.size(), 20u);
        for (int i = 0; i < testing_support::property_runs(1500); ++i) {
            json doc = base;
            // One to three leaves changed at once.
            const int changes = 1 + static_cast<int>(random() % 3);
            std::string what;
            for (int c = 0; c < changes; ++c) {
                const std::string& path = paths[random() % paths.size()];
                const json& value = edges[random() % edges.size()];
                doc[json::json_pointer(path)] = value;
                what += path + "=" + value.dump().substr(0, 24) + " ";
            }
            SCOPED_TRACE(base_name + " case " + std::to_string(i) + ": " + what);
            const auto violation = schema.first_violation(doc);
            try {
                const ResultsDocument read = results_from_json(doc, "f.json");
                ++accepted;
                EXPECT_FALSE(violation.has_value()) << "read what the schema refuses: " << violation->path;
                const json written = to_json(read);
                const auto after = schema.first_violation(written);
                EXPECT_FALSE(after.has_value()) << "wrote " << after->path << ": " << after->message;
                expect_finite(written);
            } catch (const InputError& e) {
                ++refused;
                const std::string message = e.what();
                EXPECT_EQ(message.find('\n'), std::string::npos) << message;
                EXPECT_EQ(message.rfind("f.json: ", 0), 0u) << message;
                if (violation) EXPECT_NE(message.find(violation->path), std::string::npos) << message;
            }
        }
    }
    // Both sides were reached (a generator that only ever refuses proves nothing).
    EXPECT_GT(accepted, 100);
    EXPECT_GT(refused, 100);
}

// The same documents through the program, as a user or pinreport runs it: every exit code is a
// documented one (README.md, "Exit codes": 0 read, 2 bad input, never 3 or 4 for a bad file),
// a refusal is one line naming the file, and the input is never changed.
TEST(SchemaBoundsProperty, EveryExitCodeIsADocumentedOne) {
    testing_support::TempDir dir("pinbench_schema_property");
    const json base =
        json::parse(read_text(std::string(PINBENCH_FIXTURES) + "/results-validity/accept_base.json"));
    std::vector<std::string> paths;
    leaves(base, "", paths);
    const std::vector<json> edges = edge_values();
    std::mt19937_64 random(5757);
    int refused = 0;
    for (int i = 0; i < testing_support::property_runs(60); ++i) {
        json doc = base;
        const std::string& path = paths[random() % paths.size()];
        doc[json::json_pointer(path)] = edges[random() % edges.size()];
        const std::string in = dir.file("in.json");
        const std::string text = doc.dump(1);
        write_file_atomically(in, text);
        SCOPED_TRACE(path + " = " + doc[json::json_pointer(path)].dump().substr(0, 30));
        for (const std::vector<std::string>& args :
             {std::vector<std::string>{PINBENCH_EXE, "results", "upgrade", in, "-o", dir.file("up.json")},
              {PINBENCH_EXE, "store", "add", in, "--store", dir.file("store")}}) {
            Subprocess p(args, {});
            const ProcessOutcome out = p.wait(std::chrono::seconds(60));
            EXPECT_TRUE(out.exit_code == exit_code::ok || out.exit_code == exit_code::bad_input)
                << args[1] << ": exit " << out.exit_code << ": " << out.output;
            if (out.exit_code == exit_code::bad_input) {
                ++refused;
                EXPECT_EQ(std::count(out.output.begin(), out.output.end(), '\n'), 1) << out.output;
                EXPECT_NE(out.output.find(in + ": "), std::string::npos) << out.output;
            }
        }
        EXPECT_EQ(read_text(in), text) << "an input changed";
    }
    EXPECT_GT(refused, 10);
}

}  // namespace
}  // namespace pinbench
