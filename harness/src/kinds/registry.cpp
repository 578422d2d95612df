// Every kind, in the order of docs/kinds.md: a declaration and an entry each. A kind is its own
// file in this folder (scenario/kind_spec.hpp says what it holds).
#include <string>

#include "pinbench/scenario/plan.hpp"
#include "scenario/kind_spec.hpp"
#include "scenario/kind_table.hpp"

namespace pinbench {

namespace kinds {
KindSpec overhead();
KindSpec capacity();
KindSpec sweep();
KindSpec multi_gpu();
KindSpec workers();
KindSpec churn();
KindSpec fragmentation();
KindSpec shared();
KindSpec register_window();
KindSpec command();
}  // namespace kinds

namespace {

std::vector<KindSpec> registered() {
    std::vector<KindSpec> all;
    all.push_back(kinds::overhead());
    all.push_back(kinds::capacity());
    all.push_back(kinds::sweep());
    all.push_back(kinds::multi_gpu());
    all.push_back(kinds::workers());
    all.push_back(kinds::churn());
    all.push_back(kinds::fragmentation());
    all.push_back(kinds::shared());
    all.push_back(kinds::register_window());
    all.push_back(kinds::command());
    return all;
}

}  // namespace

const std::vector<KindSpec>& kind_specs() {
    static const std::vector<KindSpec> all = registered();
    return all;
}

std::optional<std::string> waive_reason(const PlannedRun& run, const Machine& machine) {
    if (run.gpus > machine.cuda_devices) {
        return "needs " + std::to_string(run.gpus) + " GPU(s), this machine has " +
               std::to_string(machine.cuda_devices);
    }
    const KindSpec* kind = find_kind(run.kind);
    return kind != nullptr && kind->waive != nullptr ? kind->waive(run, machine) : std::nullopt;
}

}  // namespace pinbench
