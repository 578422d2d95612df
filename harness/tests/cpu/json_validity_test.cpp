// Strict JSON (json/json_reader.hpp): the shared fixture set that pinreport's reader also
// reads (harness/tests/fixtures/json-validity/expected.tsv; reports/tests/test_json_validity.py),
// so both readers accept and refuse the same files.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fixture_table.hpp"
#include "json/json_reader.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

const std::string cases_dir = std::string(PINBENCH_FIXTURES) + "/json-validity/";

std::vector<std::pair<std::string, std::string>> cases() {
    return test::fixture_table(cases_dir + "expected.tsv");
}

TEST(JsonValidity, EveryFixtureGivesTheSameAnswerAsPinreport) {
    const auto all = cases();
    ASSERT_GE(all.size(), 20u);
    for (const auto& [name, expected] : all) {
        SCOPED_TRACE(name);
        const std::string path = cases_dir + name;
        if (expected == "accept") {
            EXPECT_NO_THROW(load_results(path));
            continue;
        }
        try {
            load_results(path);
            ADD_FAILURE() << "accepted";
        } catch (const InputError& e) {
            const std::string what = e.what();
            EXPECT_EQ(what.rfind(path + ": invalid JSON", 0), 0u) << what;
            EXPECT_NE(what.find(expected), std::string::npos) << what;
        }
    }
}

std::string refusal(const std::string& text) {
    try {
        detail::parse_strict_json(text, "f.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return "accepted";
}

TEST(JsonValidity, RefusalsSayWhy) {
    EXPECT_EQ(refusal(R"({"a": 1, "b": {"c": 2, "c": 3}})"),
              R"(f.json: invalid JSON: duplicate key "c" in an object)");
    EXPECT_EQ(refusal("[NaN]"), "f.json: invalid JSON: NaN is not a JSON number");
    EXPECT_EQ(refusal("[-Infinity]"), "f.json: invalid JSON: -Infinity is not a JSON number");
    EXPECT_EQ(refusal("[1e400]"), "f.json: invalid JSON: number out of range: 1e400 (not a finite double)");
    EXPECT_EQ(refusal("[18446744073709551616]"),
              "f.json: invalid JSON: number out of range: 18446744073709551616 (integers must lie in [-2^63, "
              "2^64-1])");
    EXPECT_EQ(refusal(std::string(100000, '[') + std::string(100000, ']')),
              "f.json: invalid JSON: nested deeper than 64 levels");
    EXPECT_EQ(refusal("\xEF\xBB\xBF{}"),
              "f.json: invalid JSON: starts with a UTF-8 byte order mark (BOM); write it without one");
    EXPECT_EQ(refusal("[\"ok\", \"\xC0\xAF\"]"), "f.json: invalid JSON: not valid UTF-8 at byte 8");
    EXPECT_EQ(refusal("[\"\xED\xA0\x80\"]"),
              "f.json: invalid JSON: not valid UTF-8 at byte 2");  // a surrogate
    EXPECT_EQ(refusal(std::string(64, '[') + std::string(64, ']')), "accepted");
    EXPECT_EQ(refusal("[18446744073709551615, -9223372036854775808, 1e-400, \"\\ud83d\\ude00\"]"),
              "accepted");
}

TEST(JsonValidity, DuplicateKeyCheckIsLinear) {
    // 200k distinct keys: a quadratic check would take minutes.
    std::ostringstream s;
    s << '{';
    for (int i = 0; i < 200000; ++i) s << (i ? "," : "") << "\"k" << i << "\":" << i;
    s << '}';
    EXPECT_EQ(refusal(s.str()), "accepted");
}

}  // namespace
}  // namespace pinbench
