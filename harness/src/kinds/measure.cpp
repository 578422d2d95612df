#include "kinds/measure.hpp"

#include "pinbench/errors.hpp"
#include "scenario/kinds.hpp"

namespace pinbench::kinds {

RepeatRecord measure(const PlannedRun& run, const Nvml* nvml) {
    const KindSpec* kind = find_kind(run.kind);
    if (kind == nullptr || kind->measure == nullptr) {
        throw InputError("run " + run.id + ": unknown kind '" + run.kind + "'");
    }
    return kind->measure(run, nvml);
}

}  // namespace pinbench::kinds
