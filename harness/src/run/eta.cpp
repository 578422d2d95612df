#include "run/eta.hpp"

#include <algorithm>
#include <map>
#include <utility>

namespace pinbench {

EtaModel::EtaModel(const std::vector<PlannedRun>& runs, RepeatTimes stored, int agreeing)
    : stored_(std::move(stored)) {
    for (const auto& p : runs) {
        Run r;
        r.kind = p.kind;
        r.expected = agreeing > 0 ? std::min(p.repeats, agreeing) : p.repeats;
        r.stored = stored_.per_repeat(p);
        runs_.push_back(std::move(r));
    }
}

void EtaModel::attempt_done(std::size_t run, double seconds, bool counts) {
    if (run >= runs_.size()) return;
    runs_[run].seconds += seconds;
    if (counts) ++runs_[run].done;
}

void EtaModel::run_finished(std::size_t run) {
    if (run < runs_.size()) runs_[run].finished = true;
}

std::optional<double> EtaModel::own_mean(const std::string& kind) const {
    double seconds = 0;
    int repeats = 0;
    for (const Run& r : runs_) {
        if (r.done == 0 || (!kind.empty() && r.kind != kind)) continue;
        seconds += r.seconds;
        repeats += r.done;
    }
    if (repeats == 0) return std::nullopt;
    return seconds / repeats;
}

double EtaModel::remaining_s() const {
    // How this machine compares with the stored times so far.
    double actual = 0, expected = 0;
    for (const Run& r : runs_) {
        if (r.done == 0 || !r.stored) continue;
        actual += r.seconds;
        expected += *r.stored * r.done;
    }
    const double scale = expected > 0 ? actual / expected : 1.0;
    double left = 0;
    for (const Run& r : runs_) {
        if (r.finished) continue;
        const int still = std::max(r.expected - r.done, 0);
        if (still == 0) continue;
        double each = 1.0;
        if (r.stored) {
            each = *r.stored * scale;
        } else if (const auto k = own_mean(r.kind)) {
            each = *k;
        } else if (const auto all = own_mean("")) {
            each = *all;
        } else if (!stored_.empty()) {
            each = stored_.all.seconds / stored_.all.repeats * scale;
        }
        left += each * still;
    }
    return left;
}

}  // namespace pinbench
