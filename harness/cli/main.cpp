// pinbench: measures what pinned host memory costs in GPU memory. `pinbench --help` (cli/usage.cpp).
//   pinbench plan FILE            expand a scenario file, touch no GPU
//   pinbench run FILE -o OUT      run it, each repeat in a fresh process; write results JSON
//   pinbench run --backend replay --from RESULTS [--script S] -o OUT
//   pinbench doctor               environment + controls; exits non-zero when a control fails
//   pinbench store add RESULTS --store DIR   file results as a per-driver-release baseline
//   pinbench store upgrade --store DIR       rewrite stored nights of an older results version
//   pinbench results upgrade IN [-o OUT]      an older results file in the current version
//   pinbench trace [-o TRACE] -- PROGRAM ARGS   trace a program's host pinning (docs/trace.md)
// Each subcommand is one file, command_<name>.cpp (command.hpp).
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include "command.hpp"
#include "pinbench/platform/dynamic_library.hpp"
#include "pinbench/platform/process_info.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"
#include "platform/standard_streams.hpp"
#include "scenario/did_you_mean.hpp"
#include "usage.hpp"

namespace {

using namespace pinbench;

// A word where a command belongs that names none ("pinbench foo", "pinbench store lst"): the
// word and the nearest command, before CLI11 parses (it said only "A subcommand is required",
// and "pinbench foo --help" printed the main help with exit 0). Hidden commands are not offered.
std::optional<std::string> unknown_command(CLI::App& app, const std::vector<std::string>& arguments) {
    CLI::App* at = &app;
    std::string path = "pinbench";
    for (std::size_t i = 1; i < arguments.size(); ++i) {
        const std::string& word = arguments[i];
        if (!word.empty() && word[0] == '-' && at == &app) {
            // An option before any command: the program's own (--help, -V), else named here,
            // where CLI11 would say only "A subcommand is required".
            const std::string name = word.substr(0, word.find('='));
            const auto known = cli::option_names(app);
            if (std::find(known.begin(), known.end(), name) != known.end()) return std::nullopt;
            const std::string near = cli::nearest_option(app, word);
            return "pinbench: unknown option " + in_quotes(terminal_text(word)) +
                   (near.empty() ? "" : "; did you mean " + near + "?") +
                   "\nRun 'pinbench --help' for its options.";
        }
        if (word.empty() || word[0] == '-') return std::nullopt;
        const std::vector<CLI::App*> subs = at->get_subcommands([](CLI::App*) { return true; });
        if (subs.empty()) return std::nullopt;
        CLI::App* next = nullptr;
        std::vector<std::string> known;
        for (CLI::App* sub : subs) {
            if (sub->check_name(word)) next = sub;
            if (!sub->get_group().empty()) known.push_back(sub->get_name());
        }
        if (next == nullptr) {
            return path + ": unknown command " + in_quotes(terminal_text(word)) +
                   suggestion(word, known, "commands");
        }
        at = next;
        path += " " + word;
    }
    return std::nullopt;
}

// The command that asked for --help: the first screen for the program itself (cli/usage.hpp).
int print_help(CLI::App& app) {
    CLI::App* at = &app;
    for (auto chosen = at->get_subcommands(); !chosen.empty(); chosen = at->get_subcommands())
        at = chosen.front();
    std::cout << (at == &app ? cli::first_screen(app) : cli::command_help(*at));
    return exit_code::ok;
}

int pinbench_main(const std::vector<std::string>& arguments) {
    // The program's name is `pinbench` wherever it was started from (CLI11 took argv[0], an
    // absolute path under pip), in every usage line.
    CLI::App app{"pinbench " PINBENCH_VERSION
                 ": what pinned (page-locked) host memory costs in GPU memory, per NVIDIA driver release",
                 "pinbench"};
    app.require_subcommand(1);
    app.set_version_flag("-V,--version", "pinbench " PINBENCH_VERSION);

    // In the order a user needs them: check the machine, measure, then the rest.
    cli::Commands commands;
    cli::add_doctor_command(app, commands);
    cli::add_run_command(app, commands, arguments);
    cli::add_plan_command(app, commands);
    cli::add_budget_command(app, commands);
    cli::add_trace_command(app, commands);
    cli::add_store_commands(app, commands);
    cli::add_results_commands(app, commands);
    cli::add_metrics_command(app, commands);
    cli::add_help_command(app, commands);
    cli::add_completion_command(app, commands);
    cli::add_internal_commands(app, commands);

    if (arguments.size() <= 1) {  // `pinbench` alone: the first screen, as an error (uv, ruff)
        std::cerr << cli::first_screen(app);
        return exit_code::bad_input;
    }
    if (const auto unknown = unknown_command(app, arguments)) {
        std::cerr << *unknown << "\n";
        return exit_code::bad_input;
    }
    std::vector<const char*> argv;
    argv.reserve(arguments.size());
    for (const auto& a : arguments) argv.push_back(a.c_str());
    try {
        app.parse(static_cast<int>(argv.size()), argv.data());
    } catch (const CLI::CallForHelp&) {
        return print_help(app);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        // Escaped (an argument may hold escape sequences), with the nearest option.
        std::cerr << cli::parse_error_text(app, e);
        return exit_code::bad_input;
    }

    try {
        for (const auto& command : commands) {
            if (command->chosen()) return command->run();
        }
    } catch (const InputError& e) {
        std::cerr << terminal_text(e.what()) << "\n";  // a message may quote its input
        return exit_code::bad_input;
    } catch (const std::exception& e) {
        std::cerr << "pinbench: " << terminal_text(e.what()) << "\n";
        return exit_code::infrastructure;
    }
    return exit_code::ok;
}

}  // namespace

// The entry point. Every string inside pinbench is UTF-8 (pinbench/platform/utf8.hpp), so the arguments
// are taken in UTF-8, once, here: on Windows not from argv (the ANSI code page, which cannot hold
// José Müller 田中 together and is not UTF-8) but from the UTF-16 command line
// (program_arguments: GetCommandLineW + CommandLineToArgvW). Not the manifest's UTF-8 active code
// page: this program links msvcrt.dll, whose locale functions know no UTF-8 code page, and that
// setting needs Windows 10 1903 or later (docs/windows.md, "Text is UTF-8").
// Nothing escapes: an exception thrown while the command line is being set up (before
// pinbench_main's own handlers) is one line and the infrastructure exit code too. Whatever a
// command printed must have reached standard output: a write that failed (a full
// device, a closed pipe or descriptor) is one line and the infrastructure exit code, never 0.
int main(int argc, char** argv) {
    // First: no library this process loads from now on comes from the program's or the current
    // folder (docs/windows.md, "Which DLLs pinbench loads"); none but KnownDLLs is imported.
    (void)load_libraries_from_system_only();
    guard_standard_streams();
    int code = exit_code::infrastructure;
    try {
        code = pinbench_main(program_arguments(argc, argv));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "pinbench: %s\n", terminal_text(e.what()).c_str());
    } catch (...) {
        std::fprintf(stderr, "pinbench: an unknown exception\n");
    }
    if (const std::string error = standard_output_error(); !error.empty()) {
        std::fprintf(stderr, "pinbench: cannot write standard output: %s\n", error.c_str());
        if (code < exit_code::infrastructure) code = exit_code::infrastructure;
    }
    return code;
}
