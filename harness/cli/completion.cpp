// The completion scripts of cli/completion.hpp. Each script finds the command typed so far by
// walking the words before the cursor through the tree's command words (options and their
// values are skipped), then offers that command's words.
#include "completion.hpp"

#include <stdexcept>

namespace pinbench::cli {
namespace {

std::string joined(const std::vector<std::string>& words, const std::string& separator) {
    std::string out;
    for (const auto& w : words) out += (out.empty() ? "" : separator) + w;
    return out;
}

std::string key(const CompletionNode& node) { return joined(node.path, "/"); }

// The words a node completes to, options aside: its subcommands, then its values.
std::vector<std::string> word_choices(const CompletionNode& node) {
    std::vector<std::string> words = node.commands;
    words.insert(words.end(), node.values.begin(), node.values.end());
    return words;
}

// Every "parent/child" key of the tree: the steps the scripts may take.
std::vector<std::string> steps(const std::vector<CompletionNode>& tree) {
    std::vector<std::string> out;
    for (const auto& node : tree) {
        if (node.path.size() > 1) out.push_back(key(node));
    }
    return out;
}

std::string bash(const std::vector<CompletionNode>& tree) {
    const std::string program = tree.front().path.front();
    const std::string function = "_" + program + "_complete";
    std::string s = "# bash completion for " + program + " (" + program +
                    " completion bash); source it, or put it in\n"
                    "# ~/.local/share/bash-completion/completions/" +
                    program + "\n" + function +
                    "() {\n"
                    "    local cur=\"${COMP_WORDS[COMP_CWORD]}\" at=" +
                    program +
                    " i\n"
                    "    for ((i = 1; i < COMP_CWORD; i++)); do\n"
                    "        case \"$at/${COMP_WORDS[i]}\" in\n"
                    "            " +
                    joined(steps(tree), "|") +
                    ") at=\"$at/${COMP_WORDS[i]}\" ;;\n"
                    "        esac\n"
                    "    done\n"
                    "    local words=\"\" options=\"\"\n"
                    "    case \"$at\" in\n";
    for (const auto& node : tree) {
        const std::vector<std::string> words = word_choices(node);
        s += "        " + key(node) + ") words=\"" + joined(words, " ") + "\" options=\"" +
             joined(node.options, " ") + "\" ;;\n";
    }
    s += "    esac\n"
         "    if [[ $cur == -* ]]; then\n"
         "        COMPREPLY=($(compgen -W \"$options\" -- \"$cur\"))\n"
         "    elif [[ -n $words ]]; then\n"
         "        COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n"
         "    else\n"
         "        compopt -o filenames 2>/dev/null\n"
         "        COMPREPLY=($(compgen -f -- \"$cur\"))\n"
         "    fi\n"
         "}\n"
         "complete -F " +
         function + " " + program + "\n";
    return s;
}

std::string zsh(const std::vector<CompletionNode>& tree) {
    const std::string program = tree.front().path.front();
    std::string s = "#compdef " + program + "\n# zsh completion for " + program + " (" + program +
                    " completion zsh): save it as _" + program +
                    " in a folder of $fpath, or source it after compinit\n"
                    "_" +
                    program +
                    "() {\n"
                    "    local at=" +
                    program +
                    " i\n"
                    "    local -a commands opts\n"  // not `words`: zsh's array of the command line
                    "    for ((i = 2; i < CURRENT; i++)); do\n"
                    "        case \"$at/${words[i]}\" in\n"
                    "            (" +
                    joined(steps(tree), "|") +
                    ") at=\"$at/${words[i]}\" ;;\n"
                    "        esac\n"
                    "    done\n";
    s += "    case \"$at\" in\n";
    for (const auto& node : tree) {
        const std::vector<std::string> words = word_choices(node);
        s += "        (" + key(node) + ") commands=(" + joined(words, " ") + ") opts=(" +
             joined(node.options, " ") + ") ;;\n";
    }
    s += "    esac\n"
         "    if [[ ${words[CURRENT]} == -* ]]; then\n"
         "        compadd -- $opts\n"
         "    elif (( ${#commands} )); then\n"
         "        compadd -- $commands\n"
         "    else\n"
         "        _files\n"
         "    fi\n"
         "}\n"
         "if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _" +
         program + " \"$@\"; else compdef _" + program + " " + program + "; fi\n";
    return s;
}

std::string fish(const std::vector<CompletionNode>& tree) {
    const std::string program = tree.front().path.front();
    const std::string at = "__" + program + "_at";
    std::string s = "# fish completion for " + program + " (" + program +
                    " completion fish): save it as ~/.config/fish/completions/" + program +
                    ".fish\n"
                    "function " +
                    at +
                    "\n"
                    "    set -l at " +
                    program +
                    "\n"
                    "    for w in (commandline -opc)[2..-1]\n"
                    "        switch \"$at/$w\"\n"
                    "            case " +
                    joined(steps(tree), " ") +
                    "\n"
                    "                set at \"$at/$w\"\n"
                    "        end\n"
                    "    end\n"
                    "    echo $at\n"
                    "end\n"
                    "complete -c " +
                    program + " -e\n";
    for (const auto& node : tree) {
        const std::string when = " -n 'test (" + at + ") = " + key(node) + "'";
        const std::vector<std::string> words = word_choices(node);
        if (!words.empty()) {
            s += "complete -c " + program + " -f" + when + " -a '" + joined(words, " ") + "'\n";
        }
        for (const auto& option : node.options) {
            const bool long_option = option.rfind("--", 0) == 0;
            s += "complete -c " + program + when +
                 (long_option ? " -l " + option.substr(2) : " -s " + option.substr(1)) + "\n";
        }
    }
    return s;
}

std::string powershell(const std::vector<CompletionNode>& tree) {
    const std::string program = tree.front().path.front();
    std::string s = "# PowerShell completion for " + program + " (" + program +
                    " completion powershell): add it to your $PROFILE, or dot-source it\n"
                    "Register-ArgumentCompleter -Native -CommandName '" +
                    program + "', '" + program +
                    ".exe' -ScriptBlock {\n"
                    "    param($wordToComplete, $commandAst, $cursorPosition)\n"
                    "    $steps = @('" +
                    joined(steps(tree), "', '") +
                    "')\n"
                    "    $at = '" +
                    program +
                    "'\n"
                    "    foreach ($element in $commandAst.CommandElements | Select-Object -Skip 1) {\n"
                    "        if ($element.Extent.EndOffset -ge $cursorPosition) { break }\n"
                    "        if ($steps -contains \"$at/$element\") { $at = \"$at/$element\" }\n"
                    "    }\n"
                    "    $words = switch ($at) {\n";
    for (const auto& node : tree) {
        const std::vector<std::string> words = word_choices(node);
        std::vector<std::string> all = words;
        all.insert(all.end(), node.options.begin(), node.options.end());
        s += "        '" + key(node) + "' { @('" + joined(all, "', '") + "') }\n";
    }
    s += "        default { @() }\n"
         "    }\n"
         "    $words | Where-Object { $_ -like \"$wordToComplete*\" -and ($wordToComplete -like '-*' -or $_ "
         "-notlike "
         "'-*') } |\n"
         "        ForEach-Object { [System.Management.Automation.CompletionResult]::new($_, $_, "
         "'ParameterValue', $_) "
         "}\n"
         "}\n";
    return s;
}

}  // namespace

std::string completion_script(std::string_view shell, const std::vector<CompletionNode>& tree) {
    if (tree.empty() || tree.front().path.size() != 1) throw std::invalid_argument("completion: no program");
    if (shell == "bash") return bash(tree);
    if (shell == "zsh") return zsh(tree);
    if (shell == "fish") return fish(tree);
    if (shell == "powershell") return powershell(tree);
    throw std::invalid_argument("completion: no script for the shell '" + std::string(shell) + "'");
}

}  // namespace pinbench::cli
