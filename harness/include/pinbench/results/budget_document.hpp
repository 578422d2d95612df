// A `pinbench budget -o` document as the stages after the runner read it (docs/budget.md, "The
// document"): its name and version, written once here, and the members the store files it by.
// budget/budget.cpp writes it; the store keeps it beside the results of the same key (docs/store.md).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace pinbench {

// The document's name and version (docs/budget.schema.json and pinreport's base/schema.py must
// equal them: reports/tests/test_budget.py reads them here).
inline constexpr const char* kBudgetSchema = "pinbench.budget";
// Version 2: the limits that apply to the process (limits, each family's bounded_by, the stops
// memory_limit, address_space and oom_event, the pins' allowed), options.cap_basis.
inline constexpr int kBudgetVersion = 2;
inline constexpr int kBudgetOldestVersion = 1;  // the oldest version a reader here accepts

// Not bugprone-exception-escape: as ResultsDocument, its members' constructors are noexcept
// in practice (nlohmann::json's default one allocates nothing).
struct BudgetDocument {  // NOLINT(bugprone-exception-escape)
    int version = kBudgetVersion;
    std::string started_at;  // ISO 8601 UTC
    bool complete = false;
    nlohmann::json environment;  // the same record as a results file's (its store key)
};

// True when the document names itself a budget document ("schema": "pinbench.budget"), whatever
// else it holds: the store reads it with budget_from_json, a results file with results_from_json.
bool is_budget_document(const nlohmann::json& j);

// Reads and checks a parsed budget document: its name and version first (another kind or version
// is said as such), then every member the schema requires, each of its type; the families with
// their name and status, the safe budget null or {bytes, family, limit_found}. Throws InputError
// "FILE: PATH: message" (json_reader.hpp's JsonAt) on the first problem.
BudgetDocument budget_from_json(const nlohmann::json& j, const std::string& path_for_messages);

}  // namespace pinbench
