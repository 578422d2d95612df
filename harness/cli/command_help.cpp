// `pinbench help [COMMAND...]`: the first screen, or one command's help (`pinbench help store
// add`), as `pinbench COMMAND --help` prints it; `pinbench completion SHELL`: the shell's
// completion script (cli/completion.hpp), from the commands and options declared here.
#include <iostream>
#include <string>
#include <vector>

#include "command.hpp"
#include "completion.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"
#include "scenario/did_you_mean.hpp"
#include "usage.hpp"

namespace pinbench::cli {
namespace {

class HelpCommand : public Command {
public:
    explicit HelpCommand(CLI::App& app)
        : Command(app.add_subcommand("help", "The help of a command: pinbench help run")), root_(app) {
        app_->add_option("COMMAND", words_, "A command, and its subcommand (pinbench help store add)");
    }

    int run() override {
        if (words_.empty()) {
            std::cout << first_screen(root_);
            return exit_code::ok;
        }
        CLI::App* command = find_command(root_, words_);
        if (command == nullptr) {
            std::vector<std::string> known;
            for (CLI::App* c : visible_commands(root_)) known.push_back(c->get_name());
            std::string typed;
            for (const auto& w : words_) typed += (typed.empty() ? "" : " ") + w;
            throw InputError("pinbench help: unknown command " + in_quotes(typed) +
                             suggestion(words_.front(), known, "commands"));
        }
        std::cout << command_help(*command);
        return exit_code::ok;
    }

private:
    CLI::App& root_;
    std::vector<std::string> words_;
};

// The tree the scripts complete: every visible command, its options and subcommands.
void add_nodes(CLI::App& command, std::vector<std::string> path, std::vector<CompletionNode>& tree) {
    CompletionNode node;
    node.path = path;
    node.options = option_names(command);
    if (command.get_name() == "completion")
        node.values.assign(kCompletionShells.begin(), kCompletionShells.end());
    const std::vector<CLI::App*> subs = visible_commands(command);
    for (CLI::App* sub : subs) node.commands.push_back(sub->get_name());
    tree.push_back(node);
    for (CLI::App* sub : subs) {
        std::vector<std::string> below = path;
        below.push_back(sub->get_name());
        add_nodes(*sub, below, tree);
    }
}

class CompletionCommand : public Command {
public:
    explicit CompletionCommand(CLI::App& app)
        : Command(app.add_subcommand("completion",
                                     "Print the shell completion script: bash, zsh, fish or powershell")),
          root_(app) {
        std::vector<std::string> shells(kCompletionShells.begin(), kCompletionShells.end());
        app_->add_option("SHELL", shell_,
                         "bash, zsh, fish or powershell (docs/pip-install.md, 'Shell completion')")
            ->required()
            ->check(CLI::IsMember(shells));
    }

    int run() override {
        std::vector<CompletionNode> tree;
        add_nodes(root_, {"pinbench"}, tree);
        std::cout << completion_script(shell_, tree);
        return exit_code::ok;
    }

private:
    CLI::App& root_;
    std::string shell_;
};

}  // namespace

void add_help_command(CLI::App& app, Commands& commands) {
    commands.push_back(std::make_unique<HelpCommand>(app));
}

void add_completion_command(CLI::App& app, Commands& commands) {
    commands.push_back(std::make_unique<CompletionCommand>(app));
}

}  // namespace pinbench::cli
