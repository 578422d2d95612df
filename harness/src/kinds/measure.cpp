#include "kinds/measure.hpp"

#include <array>
#include <string_view>
#include <utility>

#include "pinbench/errors.hpp"

namespace pinbench::kinds {

RepeatRecord measure(const PlannedRun& run, const Nvml* nvml) {
    using Fn = RepeatRecord (*)(const PlannedRun&, const Nvml*);
    static constexpr std::array<std::pair<std::string_view, Fn>, 9> table{{
        {"overhead", measure_overhead},
        {"capacity", measure_capacity},
        {"sweep", measure_sweep},
        {"multi_gpu", measure_multi_gpu},
        {"workers", measure_workers},
        {"churn", measure_churn},
        {"fragmentation", measure_fragmentation},
        {"shared", measure_shared},
        {"register_window", measure_register_window},
    }};
    for (const auto& [name, fn] : table) {
        if (name == run.kind) return fn(run, nvml);
    }
    throw InputError("run " + run.id + ": unknown kind '" + run.kind + "'");
}

}  // namespace pinbench::kinds
