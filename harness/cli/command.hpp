// The subcommands of `pinbench`, one file each (command_<name>.cpp): each declares its options
// on the app and, once the command line chose it, runs and gives the exit code. Adding one is
// its file and one line in main.cpp.
#pragma once

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

namespace pinbench::cli {

class Command {
public:
    explicit Command(CLI::App* app) : app_(app) {}
    virtual ~Command() = default;
    Command(const Command&) = delete;
    Command& operator=(const Command&) = delete;

    bool chosen() const { return static_cast<bool>(*app_); }
    virtual int run() = 0;

protected:
    CLI::App* app_;  // the subcommand, owned by the app
};

using Commands = std::vector<std::unique_ptr<Command>>;

// Each adds its subcommand(s) to `app`, in the order `pinbench --help` lists them.
void add_metrics_command(CLI::App& app, Commands& commands);
void add_plan_command(CLI::App& app, Commands& commands);
// `command_line`: argv as typed, for the results file.
void add_run_command(CLI::App& app, Commands& commands, std::vector<std::string> command_line);
void add_store_commands(CLI::App& app, Commands& commands);    // store add, store list
void add_results_commands(CLI::App& app, Commands& commands);  // results upgrade
void add_doctor_command(CLI::App& app, Commands& commands);
void add_trace_command(CLI::App& app, Commands& commands);
void add_budget_command(CLI::App& app, Commands& commands);      // budget (docs/budget.md)
void add_help_command(CLI::App& app, Commands& commands);        // help [COMMAND...]
void add_completion_command(CLI::App& app, Commands& commands);  // completion SHELL
void add_internal_commands(CLI::App& app, Commands& commands);   // __exec, __child, __worker (hidden)

// `pinbench store add`: one line per file. Bad input (unreadable, incomplete, unknown schema) is
// named and the other files are still added; the exit code is then 2. Also the end of
// `pinbench run --store`.
int add_to_store(const std::string& dir, const std::vector<std::string>& files, bool allow_incomplete);

}  // namespace pinbench::cli
