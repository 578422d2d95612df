// `pinbench budget` (docs/budget.md): how much host memory this machine lets one process pin
// now, per API family, without breaking anything. The parent starts every phase in a child
// process (budget_child.hpp), so no failure, poisoned state or leak reaches it; it builds one
// document (schema kBudgetSchema), which the screen (budget_console.hpp) and `-o` only read.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>

namespace pinbench {

// The document's name and version, written once here (docs/budget.schema.json and pinreport's
// reports/pinreport/schema.py must equal them: reports/tests/test_budget.py).
inline constexpr const char* kBudgetSchema = "pinbench.budget";
// Version 2: the limits that apply to the process (limits, each family's bounded_by, the stops
// memory_limit, address_space and oom_event, the pins' allowed), options.cap_basis. A version 1
// document is still read (pinreport).
inline constexpr int kBudgetVersion = 2;

// The API families measured, by the spelling of their API variant (pinbench/vocabulary/api_variant.hpp).
inline constexpr const char* kBudgetFamilies[] = {"cudaMallocHost", "cudaHostRegister"};

// The pin tried after a failure to tell a clean failure from one that poisons the process.
inline constexpr std::uint64_t kBudgetSmallPin = std::uint64_t{2} << 20;

// --cap's default (docs/budget.md): 16 GiB; on Windows derived from the OS's limit for graphics
// (budget_rule.hpp's windows_default_cap), so that the default run finds where pins fail there.
inline constexpr std::uint64_t kBudgetDefaultCap = std::uint64_t{16} << 30;

struct BudgetOptions {
    std::string executable;            // this pinbench, started as `__child`
    std::optional<std::uint64_t> cap;  // nothing: the default (kBudgetDefaultCap, Windows' own)
    std::uint64_t chunk = 0;
    std::optional<std::uint64_t> keep_free;  // nothing: default_keep_free(available at the start)
    double time_limit_s = 0;                 // for all the searches together
    // Only the held phase of each family (--held-only): no single phase child is started, and
    // largest_single says it was not measured (budget_stop::not_measured). The main job's answer
    // shows only the safe budget, which comes from the held phase alone (docs/budget.md).
    bool held_only = false;
};

// Runs the search, a line on `progress` per phase; returns the document. Stops early, with
// "complete": false and "interrupted", when this process is asked to stop (StopOnSignals).
nlohmann::json measure_budget(const BudgetOptions& options, std::ostream& progress);

// 0: answered (whatever bounded it); 3: a family has no answer (its child failed, or no GPU),
// another process moved device memory while its held phase measured (vram_disturbed), or the
// OOM killer of a group this process is in killed a process while the budget ran
// (limits.oom_events); 128+N: interrupted by signal N.
int budget_exit_code(const nlohmann::json& document);

}  // namespace pinbench
