// pinbench's own text around CLI11's: the first screen of `pinbench --help` (what pinbench is,
// what to run first, examples, a word of pinreport, the commands in the order a user needs them,
// the installed docs), the help of one command (`pinbench help run`), and the parser's errors,
// escaped (terminal_text) with the nearest option of the command they were typed for.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace pinbench::cli {

// The commands `pinbench --help` lists (not the internal ones), in the order they were added.
std::vector<CLI::App*> visible_commands(CLI::App& app);

// The command that `words` name below `app` ("store", "add"), or nullptr.
CLI::App* find_command(CLI::App& app, const std::vector<std::string>& words);

// Every option name of `command`: "--long" and "-s", --help included.
std::vector<std::string> option_names(const CLI::App& command);

// The nearest option of `command` to a word typed as one ("--onyl" -> "--only", "--held_only=1"
// -> "--held-only"), or "" when none is within two edits.
std::string nearest_option(const CLI::App& command, const std::string& word);

// `pinbench --help`.
std::string first_screen(CLI::App& app);

// `command`'s help, as `pinbench COMMAND --help` prints it, under the program name `pinbench`.
std::string command_help(CLI::App& command);

// The lines a parse error prints (ending in a line break): CLI11's message escaped, the nearest
// option for an unknown one ("did you mean --only?"), and where the command's options are.
std::string parse_error_text(CLI::App& app, const CLI::ParseError& error);

}  // namespace pinbench::cli
