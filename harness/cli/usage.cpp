// The text of cli/usage.hpp.
#include "usage.hpp"

#include <algorithm>
#include <cstddef>
#include <iomanip>
#include <sstream>

#include "installed_files.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"
#include "scenario/did_you_mean.hpp"

namespace pinbench::cli {
namespace {

// The command a parse error was met in: the deepest one the command line chose.
CLI::App* deepest_chosen(CLI::App& app) {
    CLI::App* at = &app;
    for (std::vector<CLI::App*> chosen = at->get_subcommands(); !chosen.empty();
         chosen = at->get_subcommands()) {
        at = chosen.front();
    }
    return at;
}

// "pinbench store add": the command's words under the program's name.
std::string command_path(const CLI::App& command) {
    std::string path;
    for (const CLI::App* at = &command; at != nullptr; at = at->get_parent()) {
        path = (at->get_parent() == nullptr ? std::string("pinbench") : at->get_name()) +
               (path.empty() ? "" : " " + path);
    }
    return path;
}

}  // namespace

std::string nearest_option(const CLI::App& command, const std::string& word) {
    if (word.size() < 2 || word[0] != '-') return {};
    const std::string name = word.substr(0, word.find('='));
    std::string best;
    std::size_t best_distance = 3;  // as the scenario hints: at most two edits (did_you_mean.hpp)
    for (const std::string& known : option_names(command)) {
        const std::size_t d = edit_distance(name, known);
        if (d < best_distance && known.size() > 2) {
            best = known;
            best_distance = d;
        }
    }
    return best;
}

std::vector<CLI::App*> visible_commands(CLI::App& app) {
    return app.get_subcommands([](CLI::App* sub) { return !sub->get_group().empty(); });
}

CLI::App* find_command(CLI::App& app, const std::vector<std::string>& words) {
    CLI::App* at = &app;
    for (const std::string& word : words) {
        CLI::App* next = nullptr;
        for (CLI::App* sub : visible_commands(*at)) {
            if (sub->check_name(word)) next = sub;
        }
        if (next == nullptr) return nullptr;
        at = next;
    }
    return at;
}

std::vector<std::string> option_names(const CLI::App& command) {
    std::vector<std::string> names;
    for (const CLI::Option* option : command.get_options()) {
        for (const std::string& l : option->get_lnames()) names.push_back("--" + l);
        for (const std::string& s : option->get_snames()) names.push_back("-" + s);
    }
    return names;
}

std::string first_screen(CLI::App& app) {
    std::ostringstream out;
    out << app.get_description() << "\n\n"
        << "Start here:\n"
        << "  pinbench doctor                  check this machine: the GPU, the probes, the controls\n"
        << "  pinbench run quick -o quick.json measure the packaged quick scenario; ends with the answer\n"
        << "  pinbench run --backend replay --from h200-smoke --script relabel-demo -o replayed.json\n"
        << "                                   the same pipeline on committed H200 results, no GPU needed\n\n"
        << "Usage: pinbench [OPTIONS] COMMAND [ARGS]...\n\n"
        << "Commands:\n";
    for (CLI::App* command : visible_commands(app)) {
        out << "  " << std::left << std::setw(12) << command->get_name() << command->get_description()
            << "\n";
    }
    out << "\nOptions:\n"
        << "  -h, --help     this screen; `pinbench help COMMAND` or `pinbench COMMAND --help` for one "
           "command\n"
        << "  -V, --version  the version\n\n"
        << "The answer: every run ends with `pinreport summary`; pinreport, installed beside pinbench,\n"
        << "also makes the HTML page (`pinreport html --current quick.json -o report.html`) and the\n"
        << "verdicts between driver releases (`pinreport --help`).\n\n"
        << "Scenarios and the replay example are found by name (quick, nightly, h200-smoke).\n"
        << "Documentation: " << terminal_text(docs_folder_text()) << " (start with scenario-format.md)\n"
        << "Exit codes: 0 ok, 1 regression, 2 bad input, 3 no GPU or a failed run, 128+N stopped by signal "
           "N.\n";
    return out.str();
}

std::string command_help(CLI::App& command) {
    // CLI11 names the command by its own word ("Usage: run"); under its parents' words, it is
    // "Usage: pinbench run".
    const CLI::App* parent = command.get_parent();
    return command.help(parent == nullptr ? "" : command_path(*parent));
}

std::string parse_error_text(CLI::App& app, const CLI::ParseError& error) {
    CLI::App* command = deepest_chosen(app);
    std::string line = command_path(*command) + ": " + error.what();
    // A misspelt option is left over whatever the error (CLI11 may stop first at a value).
    std::vector<std::string> extras = command->remaining();
    if (extras.empty()) extras = app.remaining();
    for (const std::string& word : extras) {
        if (const std::string near = nearest_option(*command, word); !near.empty()) {
            line += "; did you mean " + near + "?";
            break;
        }
    }
    return terminal_text(line) + "\nRun '" + command_path(*command) + " --help' for its options.\n";
}

}  // namespace pinbench::cli
