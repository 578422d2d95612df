#include "results/repeat_times.hpp"

namespace pinbench {

void RepeatTimes::add(const RunRecord& run) {
    Sum s;
    for (const auto& r : run.repeats) {
        double ms = r.wall_ms + r.parent_wait_ms;
        if (const auto it = r.phases_ms.find("return_wait"); it != r.phases_ms.end()) ms += it->second;
        s.seconds += ms / 1000;
        ++s.repeats;
    }
    if (s.repeats == 0) return;
    for (Sum* to : {&by_id[run.run.id], &by_kind[run.run.kind], &all}) {
        to->seconds += s.seconds;
        to->repeats += s.repeats;
    }
}

std::optional<double> RepeatTimes::per_repeat(const PlannedRun& run) const {
    for (const auto* table : {&by_id, &by_kind}) {
        const auto key = table == &by_id ? run.id : run.kind;
        if (const auto it = table->find(key); it != table->end() && it->second.repeats > 0) {
            return it->second.seconds / it->second.repeats;
        }
    }
    return std::nullopt;
}

}  // namespace pinbench
