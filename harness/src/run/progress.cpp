#include "run/progress.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>

#include "pinbench/vocabulary/terminal_text.hpp"

namespace pinbench {
namespace {

std::string clock_text(double seconds) {
    const long long s = std::llround(seconds);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
    return buf;
}

}  // namespace

void Progress::repeat_done(std::size_t run_index, std::size_t runs, const std::string& id, int repeat,
                           int repeats, const std::string& status, bool counts) {
    if (counts) ++done_;
    const auto now = SteadyClock::now();
    if (eta_) eta_->attempt_done(run_index, std::chrono::duration<double>(now - last_).count(), counts);
    last_ = now;
    if (!out_) return;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double eta = eta_ ? eta_->remaining_s() : done_ > 0 ? elapsed / done_ * (total_ - done_) : 0;
    *out_ << "[" << run_index + 1 << "/" << runs << "] " << terminal_text(id) << " repeat " << repeat + 1
          << "/" << repeats << " " << terminal_text(status) << "  elapsed " << clock_text(elapsed) << "  eta "
          << clock_text(eta) << "\n"
          << std::flush;
}

void Progress::run_note(std::size_t run_index, std::size_t runs, const std::string& id,
                        const std::string& what) {
    note("[" + std::to_string(run_index + 1) + "/" + std::to_string(runs) + "] " + id + " " + what);
}

void Progress::note(const std::string& line) {
    // A run id or a reason may come from a replayed results file: escaped (terminal_text).
    if (out_) *out_ << terminal_text(line) << "\n" << std::flush;
}

}  // namespace pinbench
