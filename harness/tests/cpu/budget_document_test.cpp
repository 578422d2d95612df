// Reading a `pinbench budget` document (pinbench/results/budget_document.hpp): what the store
// checks before it files one, and the name and version the writer and the readers share.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "pinbench/results/budget_document.hpp"
#include "pinbench/vocabulary/errors.hpp"

namespace pinbench {
namespace {

using nlohmann::json;

json budget() {
    return {{"schema", kBudgetSchema},
            {"version", kBudgetVersion},
            {"started_at", "2026-12-06T04:32:03Z"},
            {"elapsed_s", 44.5},
            {"complete", true},
            {"options", json::object()},
            {"rule", json::object()},
            {"host", json::object()},
            {"environment", {{"platform", "linux"}, {"driver", {{"release", "580.159.04"}}}}},
            {"families", json::array({{{"family", "cudaMallocHost"}, {"status", "ok"}}})},
            {"safe_budget", {{"bytes", 6979321856}, {"family", "cudaMallocHost"}, {"limit_found", true}}}};
}

std::string refusal(const json& j) {
    try {
        budget_from_json(j, "b.json");
    } catch (const InputError& e) {
        return e.what();
    }
    return "";
}

TEST(BudgetDocument, ReadsWhatTheStoreFilesItBy) {
    const BudgetDocument doc = budget_from_json(budget(), "b.json");
    EXPECT_EQ(doc.version, kBudgetVersion);
    EXPECT_EQ(doc.started_at, "2026-12-06T04:32:03Z");
    EXPECT_TRUE(doc.complete);
    EXPECT_EQ(doc.environment["driver"]["release"], "580.159.04");
    EXPECT_TRUE(is_budget_document(budget()));
    EXPECT_FALSE(is_budget_document(json{{"schema", "pinbench.results"}}));
    EXPECT_FALSE(is_budget_document(json::array()));
}

TEST(BudgetDocument, AnotherKindOrVersionIsSaidAsSuch) {
    json other = budget();
    other["schema"] = "pinbench.results";
    EXPECT_EQ(refusal(other),
              "b.json: not a pinbench budget document (schema is \"pinbench.results\", expected "
              "\"pinbench.budget\")");
    json newer = budget();
    newer["version"] = kBudgetVersion + 1;
    EXPECT_EQ(refusal(newer), "b.json: budget version " + std::to_string(kBudgetVersion + 1) +
                                  " is not supported (this build reads versions 1 to " +
                                  std::to_string(kBudgetVersion) + ")");
}

TEST(BudgetDocument, EveryRequiredMemberIsCheckedForItsType) {
    for (const char* member : {"started_at", "complete", "elapsed_s", "options", "rule", "host",
                               "environment", "families", "safe_budget"}) {
        json missing = budget();
        missing.erase(member);
        EXPECT_EQ(refusal(missing), std::string("b.json: ") + member + ": missing required field") << member;
    }
    json wrong = budget();
    wrong["complete"] = "yes";
    EXPECT_EQ(refusal(wrong), "b.json: complete: expected true or false, found string");
    json status = budget();
    status["families"][0]["status"] = "maybe";
    EXPECT_EQ(refusal(status),
              "b.json: families[0].status: unknown status 'maybe' (expected ok, waived or failed)");
    json negative = budget();
    negative["safe_budget"]["bytes"] = -1;
    EXPECT_NE(refusal(negative).find("safe_budget.bytes: out of range"), std::string::npos)
        << refusal(negative);
    json none = budget();
    none["safe_budget"] = nullptr;  // no family answered: still a budget document
    EXPECT_EQ(refusal(none), "");
}

}  // namespace
}  // namespace pinbench
