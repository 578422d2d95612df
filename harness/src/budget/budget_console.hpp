// The one screen of `pinbench budget`: read from the document only (budget.hpp).
#pragma once

#include <nlohmann/json.hpp>
#include <ostream>

namespace pinbench {

void print_budget(const nlohmann::json& document, std::ostream& out);

}  // namespace pinbench
