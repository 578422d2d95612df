// Reading a `pinbench budget` document (pinbench/results/budget_document.hpp): the checks the
// store applies before it files one, as results_from_json's before it files a results file.
#include "pinbench/results/budget_document.hpp"

#include <cstdint>
#include <string>

#include "json/json_reader.hpp"
#include "pinbench/vocabulary/errors.hpp"

namespace pinbench {

using nlohmann::json;

bool is_budget_document(const json& j) {
    const auto it = j.is_object() ? j.find("schema") : j.end();
    return j.is_object() && it != j.end() && it->is_string() && it->get<std::string>() == kBudgetSchema;
}

namespace {

// Statuses of a family and what stops a search: the schema's enums (docs/budget.schema.json).
bool is_status(const std::string& s) { return s == "ok" || s == "waived" || s == "failed"; }

void check_family(const detail::JsonAt& f) {
    f.require_object();
    f.field("family").string();
    const detail::JsonAt status = f.field("status");
    if (!is_status(status.string())) {
        status.fail("unknown status '" + status.string() + "' (expected ok, waived or failed)");
    }
}

void check_safe_budget(const detail::JsonAt& best) {
    if (best.json().is_null()) return;
    best.require_object();
    best.field("bytes").unsigned_in(0, static_cast<std::uint64_t>(INT64_MAX));
    best.field("family").string();
    best.field("limit_found").boolean();
}

}  // namespace

BudgetDocument budget_from_json(const json& j, const std::string& path_for_messages) {
    const std::string& file = path_for_messages;
    const detail::JsonAt root(j, file, "");
    root.require_object();
    if (!is_budget_document(j)) {
        const auto it = j.find("schema");
        throw InputError(file + ": not a pinbench budget document (schema is " +
                         (it == j.end() ? std::string("missing") : it->dump()) + ", expected \"" +
                         kBudgetSchema + "\")");
    }
    const std::int64_t version = root.field("version").integer();
    if (version < kBudgetOldestVersion || version > kBudgetVersion) {
        throw InputError(file + ": budget version " + std::to_string(version) +
                         " is not supported (this build reads versions " +
                         std::to_string(kBudgetOldestVersion) + " to " + std::to_string(kBudgetVersion) +
                         ")");
    }
    BudgetDocument doc;
    doc.version = static_cast<int>(version);
    doc.started_at = root.field("started_at").string();
    doc.complete = root.field("complete").boolean();
    root.field("elapsed_s").number();
    for (const char* part : {"options", "rule", "host"}) root.field(part).require_object();
    const detail::JsonAt environment = root.field("environment");
    environment.require_object();
    doc.environment = environment.json();
    root.field("families").for_each_element(check_family);
    check_safe_budget(root.field("safe_budget"));
    return doc;
}

}  // namespace pinbench
