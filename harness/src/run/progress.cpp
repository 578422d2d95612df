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

// Characters as a terminal counts them: UTF-8 continuation bytes and our own colour sequences
// (ESC [ ... m) take no column.
std::size_t width_of(const std::string& text) {
    std::size_t width = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\x1b' && i + 1 < text.size() && text[i + 1] == '[') {
            while (i < text.size() && text[i] != 'm') ++i;
            continue;
        }
        width += (static_cast<unsigned char>(text[i]) & 0xC0) != 0x80 ? 1 : 0;
    }
    return width;
}

// `text` cut to `width` characters (whole UTF-8 sequences), "..." marking the cut.
std::string cut_to(const std::string& text, std::size_t width) {
    if (width_of(text) <= width) return text;
    if (width <= 3) return std::string(width, '.');
    std::string out;
    std::size_t w = 0;
    for (const char c : text) {
        const bool starts = (static_cast<unsigned char>(c) & 0xC0) != 0x80;
        if (starts && ++w > width - 3) break;
        out += c;
    }
    return out + "...";
}

const char* colour_of(const std::string& status) {
    if (status == "ok") return "\x1b[32m";  // green
    if (status == "waived") return "\x1b[36m";
    if (status == "failed" || status == "timeout") return "\x1b[31m";  // red
    return "\x1b[33m";                                                 // yellow: disturbed, a retry
}

}  // namespace

std::string live_line(std::size_t run_index, std::size_t runs, const std::string& id, int repeat, int repeats,
                      const std::string& status, double elapsed_s, double eta_s, int columns, bool colour) {
    const std::string head = "[" + std::to_string(run_index + 1) + "/" + std::to_string(runs) + "] " +
                             clock_text(elapsed_s) + " eta " + clock_text(eta_s) + "  repeat " +
                             std::to_string(repeat + 1) + "/" + std::to_string(repeats) + " ";
    const std::string word = terminal_text(status);
    // One column short of the width: a line that fills it wraps on some terminals.
    const std::size_t width = static_cast<std::size_t>(columns > 0 ? columns : 80) - 1;
    const std::size_t used = width_of(head) + width_of(word) + 2;
    const std::string rest = used < width ? cut_to(terminal_text(id), width - used) : "";
    const std::string shown_word = colour ? colour_of(status) + word + "\x1b[0m" : word;
    if (width_of(head) + width_of(word) > width) return cut_to(head + word, width);
    return head + shown_word + (rest.empty() ? "" : "  " + rest);
}

void Progress::restart(int total_repeats) {
    total_ = total_repeats;
    done_ = 0;
    start_ = last_ = SteadyClock::now();
    eta_.reset();
}

void Progress::repeat_done(std::size_t run_index, std::size_t runs, const std::string& id, int repeat,
                           int repeats, const std::string& status, bool counts) {
    if (counts) ++done_;
    const auto now = SteadyClock::now();
    if (eta_) eta_->attempt_done(run_index, std::chrono::duration<double>(now - last_).count(), counts);
    last_ = now;
    if (!out_) return;
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    const double eta = eta_ ? eta_->remaining_s() : done_ > 0 ? elapsed / done_ * (total_ - done_) : 0;
    if (style_.live) {
        show_live(live_line(run_index, runs, id, repeat, repeats, status, elapsed, eta, style_.columns,
                            style_.colour));
        return;
    }
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
    if (!out_) return;
    // A run id or a reason may come from a replayed results file: escaped (terminal_text).
    const std::string shown = live_;
    clear_line();
    *out_ << terminal_text(line) << "\n" << std::flush;
    if (!shown.empty()) show_live(shown);  // the live line stays below the notes
}

void Progress::status(const std::string& line) {
    if (out_ && style_.live)
        show_live(cut_to(terminal_text(line),
                         static_cast<std::size_t>(style_.columns > 0 ? style_.columns : 80) - 1));
}

void Progress::show_live(const std::string& line) {
    // The carriage return and spaces over what is left of the longer line before: no escape
    // sequence is needed, so every terminal and console shows it alike.
    const std::size_t width = width_of(line);
    *out_ << "\r" << line << std::string(live_width_ > width ? live_width_ - width : 0, ' ') << std::flush;
    if (live_width_ > width) *out_ << "\r" << line << std::flush;
    live_ = line;
    live_width_ = width;
}

void Progress::clear_line() {
    if (!out_ || live_.empty()) return;
    *out_ << "\r" << std::string(live_width_, ' ') << "\r" << std::flush;
    live_.clear();
    live_width_ = 0;
}

}  // namespace pinbench
