#include "answer.hpp"

#include <chrono>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "pinbench/platform/subprocess.hpp"
#include "pinbench/platform/utf8.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

constexpr auto kSummaryTimeout = std::chrono::minutes(5);

// The checkout's .venv, for a build inside the checkout: this executable is
// CHECKOUT/build/PRESET/harness/pinbench and CHECKOUT holds CMakePresets.json. Nothing else
// above the program is looked at: a folder above a download (C:\, the user's Downloads) is no
// checkout, and a .venv planted there must not run.
std::optional<fs::path> in_checkout_venv() {
    std::error_code ec;
    const fs::path harness = path_from_utf8(current_executable_path()).parent_path();
    const fs::path build = harness.parent_path().parent_path();
    if (harness.filename() != "harness" || build.filename() != "build") return std::nullopt;
    const fs::path checkout = build.parent_path();
    if (!fs::is_regular_file(checkout / "CMakePresets.json", ec)) return std::nullopt;
    for (const auto& rel : {fs::path(".venv/bin/pinreport"), fs::path(".venv/Scripts/pinreport.exe")}) {
        if (fs::is_regular_file(checkout / rel, ec)) return checkout / rel;
    }
    return std::nullopt;
}

// The pinreport installed beside this executable: `pip install pinbench` puts both commands in
// one scripts folder (bin/, Scripts\), docs/pip-install.md. The pinreport of the same wheel, so
// of the same version, even where that folder is not on the PATH.
std::optional<fs::path> beside_executable() {
    std::error_code ec;
    const fs::path dir = path_from_utf8(current_executable_path()).parent_path();
    for (const char* name : {"pinreport", "pinreport.exe"}) {
        if (fs::is_regular_file(dir / name, ec)) return dir / name;
    }
    return std::nullopt;
}

// Where pinreport may be, in order: $PINREPORT, beside this executable (the wheel), `pinreport`
// along PATH's absolute folders, the checkout's .venv. Subprocess starts each by the rule of
// platform/program_search.hpp: a bare name is never looked for in the current folder, so a
// pinreport.exe planted where pinbench runs (a download folder) never runs.
std::vector<std::string> pinreport_candidates() {
    if (auto env = environment_variable("PINREPORT"); env && !env->empty()) return {*env};
    std::vector<std::string> out;
    if (auto beside = beside_executable()) out.push_back(utf8_of(*beside));
    out.emplace_back("pinreport");
    if (auto venv = in_checkout_venv()) out.push_back(utf8_of(*venv));
    return out;
}

void print_statuses(const std::string& results_path, std::ostream& out) {
    std::map<std::string, int> counts;
    try {
        for (const auto& r : load_results(results_path).runs) ++counts[to_string(r.status)];
    } catch (const std::exception& e) {
        out << "pinbench: " << terminal_text(e.what()) << "\n";
        return;
    }
    out << "runs:";
    for (const auto& [status, n] : counts) out << " " << n << " " << status;
    out << "\n";
}

// How to install pinreport, as this copy of pinbench can: for the pinbench of a wheel (its
// scenarios installed under ../share/pinbench), pip again; for the Windows zip, from the
// wheelhouse beside it with no download, into the venv its README makes (docs/package-windows.md);
// for the tarball, from the wheel beside it; else from the checkout's reports/.
std::string install_hint() {
    std::error_code ec;
    const fs::path dir = path_from_utf8(current_executable_path()).parent_path();
    if (fs::is_directory(dir.parent_path() / "share" / "pinbench", ec)) {
        return "pip install --force-reinstall pinbench (it installs pinreport beside " + utf8_of(dir) +
               "; docs/pip-install.md)";
    }
    if (fs::is_directory(dir / "wheelhouse", ec)) {
        return "install pinreport from \"" + utf8_of(dir / "wheelhouse") + "\"" +
               " (no download) into a venv and set PINREPORT (docs/package-windows.md, \"pinreport, "
               "offline\")";
    }
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = utf8_of(it->path().filename());
        if (name.rfind("pinreport-", 0) == 0 && name.ends_with(".whl")) {
#ifdef _WIN32
            return "py -3 -m pip install \"" + utf8_of(it->path()) +
                   "\" (docs/package-windows.md, \"pinreport\")";
#else
            return "python3 -m pip install '" + utf8_of(it->path()) +
                   "' (docs/package-linux.md, \"pinreport\")";
#endif
        }
    }
    return "pip install -e reports (in a checkout of pinbench's source)";
}

}  // namespace

void print_answer(const std::string& results_path, const std::string& store_dir, std::ostream& out) {
    const std::string how =
        "the answer (cost per pinned GiB, the 10-20% rule, the reserve): " + install_hint() +
        ", then pinreport summary " + results_path;
    fs::path markdown = path_from_utf8(results_path);
    markdown.replace_extension(".summary.md");
    out.flush();
    std::string tried;
    for (const auto& pinreport : pinreport_candidates()) {
        std::vector<std::string> argv{pinreport, "summary", results_path};
        if (!store_dir.empty()) argv.insert(argv.end(), {"--store", store_dir});
        argv.insert(argv.end(), {"--markdown", utf8_of(markdown)});
        std::optional<ProcessOutcome> outcome;
        try {
            SubprocessOptions options;
            options.inherit_stdio = true;
            // Calls go one way, pinbench to pinreport: it reads what pinbench wrote and starts nothing.
            Subprocess child(argv, {}, options);
            outcome = child.wait(kSummaryTimeout);
        } catch (const std::exception& e) {
            tried += (tried.empty() ? "" : "; ") + pinreport + ": " + e.what();
            continue;  // not there: the next candidate
        }
        // 0..3 are verdicts (as `pinreport compare`); anything else means no summary was given.
        if (outcome->kind == ProcessOutcome::Kind::exited && outcome->exit_code <= 3) return;
        print_statuses(results_path, out);
        out << "pinbench: " << terminal_text(pinreport) << " summary gave no answer; " << terminal_text(how)
            << "\n";
        return;
    }
    print_statuses(results_path, out);
    out << "pinbench: pinreport not found (" << terminal_text(tried) << "); " << terminal_text(how) << "\n";
}

}  // namespace pinbench
