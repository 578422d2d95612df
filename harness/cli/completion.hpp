// Shell completion scripts for pinbench (`pinbench completion SHELL`), as ruff and uv print
// theirs: bash, zsh, fish and PowerShell, each generated from the same command tree, so a new
// command or option completes without editing a script. A word after a command completes its
// subcommands, a word starting with '-' its options, anything else a file name.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench::cli {

// One command of the tree: its words from the program on ("pinbench", "pinbench store"), its
// subcommands, its options ("--output", "-o") and the fixed values of its first argument (the
// shells of `completion`).
struct CompletionNode {
    std::vector<std::string> path;
    std::vector<std::string> commands;
    std::vector<std::string> options;
    std::vector<std::string> values;
};

inline constexpr std::array<std::string_view, 4> kCompletionShells{"bash", "zsh", "fish", "powershell"};

// The script for `shell` (one of kCompletionShells), for the command `program`; the tree's
// first node is the program itself. Throws std::invalid_argument for another shell.
std::string completion_script(std::string_view shell, const std::vector<CompletionNode>& tree);

}  // namespace pinbench::cli
