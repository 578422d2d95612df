#include "answer.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <optional>
#include <system_error>
#include <vector>

#include "pinbench/results.hpp"
#include "pinbench/subprocess.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

constexpr auto kSummaryTimeout = std::chrono::minutes(5);

std::optional<fs::path> on_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    if (path == nullptr) return std::nullopt;
#ifdef _WIN32
    constexpr char kSeparator = ';';
    const std::vector<std::string> suffixes{".exe", ".cmd", ""};
#else
    constexpr char kSeparator = ':';
    const std::vector<std::string> suffixes{""};
#endif
    std::string rest = path;
    while (!rest.empty()) {
        const auto cut = rest.find(kSeparator);
        const std::string dir = rest.substr(0, cut);
        rest = cut == std::string::npos ? "" : rest.substr(cut + 1);
        if (dir.empty()) continue;
        for (const auto& suffix : suffixes) {
            std::error_code ec;
            const fs::path candidate = fs::path(dir) / (name + suffix);
            if (fs::is_regular_file(candidate, ec)) return candidate;
        }
    }
    return std::nullopt;
}

// The checkout's .venv: upward from this executable (build/<preset>/harness/pinbench).
std::optional<fs::path> in_checkout_venv() {
    std::error_code ec;
    fs::path dir = fs::path(current_executable_path()).parent_path();
    for (int up = 0; up < 6 && !dir.empty(); ++up, dir = dir.parent_path()) {
        for (const auto& rel : {fs::path(".venv/bin/pinreport"), fs::path(".venv/Scripts/pinreport.exe")}) {
            if (fs::is_regular_file(dir / rel, ec)) return dir / rel;
        }
        if (dir == dir.parent_path()) break;
    }
    return std::nullopt;
}

std::optional<fs::path> find_pinreport() {
    if (const char* env = std::getenv("PINREPORT"); env != nullptr && *env != '\0') return fs::path(env);
    if (auto p = on_path("pinreport")) return p;
    return in_checkout_venv();
}

void print_statuses(const std::string& results_path, std::ostream& out) {
    std::map<std::string, int> counts;
    try {
        for (const auto& r : load_results(results_path).runs) ++counts[to_string(r.status)];
    } catch (const std::exception& e) {
        out << "pinbench: " << e.what() << "\n";
        return;
    }
    out << "runs:";
    for (const auto& [status, n] : counts) out << " " << n << " " << status;
    out << "\n";
}

}  // namespace

void print_answer(const std::string& results_path, const std::string& store_dir, std::ostream& out) {
    const auto pinreport = find_pinreport();
    const std::string how =
        "the answer (cost per pinned GiB, the 10-20% rule, the reserve): pip install -e reports, then "
        "pinreport summary " +
        results_path;
    if (!pinreport) {
        print_statuses(results_path, out);
        out << "pinbench: pinreport not found (PINREPORT, PATH, .venv); " << how << "\n";
        return;
    }
    std::vector<std::string> argv{pinreport->string(), "summary", results_path};
    if (!store_dir.empty()) argv.insert(argv.end(), {"--store", store_dir});
    fs::path markdown = results_path;
    markdown.replace_extension(".summary.md");
    argv.insert(argv.end(), {"--markdown", markdown.string()});
    out.flush();
    try {
        SubprocessOptions options;
        options.inherit_stdio = true;
        Subprocess child(argv, {{"PINBENCH_EXE", current_executable_path()}}, options);
        const ProcessOutcome outcome = child.wait(kSummaryTimeout);
        // 0..3 are verdicts (as `pinreport compare`); anything else means no summary was given.
        if (outcome.kind != ProcessOutcome::Kind::exited || outcome.exit_code > 3) {
            print_statuses(results_path, out);
            out << "pinbench: " << pinreport->string() << " summary gave no answer; " << how << "\n";
        }
    } catch (const std::exception& e) {
        print_statuses(results_path, out);
        out << "pinbench: cannot run " << pinreport->string() << ": " << e.what() << "; " << how << "\n";
    }
}

}  // namespace pinbench
