#include "run/progress.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>

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
    if (!out_) return;
    const double elapsed = std::chrono::duration<double>(SteadyClock::now() - start_).count();
    const double eta = done_ > 0 ? elapsed / done_ * (total_ - done_) : 0;
    *out_ << "[" << run_index + 1 << "/" << runs << "] " << id << " repeat " << repeat + 1 << "/" << repeats
          << " " << status << "  elapsed " << clock_text(elapsed) << "  eta " << clock_text(eta) << "\n"
          << std::flush;
}

void Progress::run_note(std::size_t run_index, std::size_t runs, const std::string& id,
                        const std::string& what) {
    note("[" + std::to_string(run_index + 1) + "/" + std::to_string(runs) + "] " + id + " " + what);
}

void Progress::note(const std::string& line) {
    if (out_) *out_ << line << "\n" << std::flush;
}

}  // namespace pinbench
