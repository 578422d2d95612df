// `pinbench completion SHELL` (cli/completion.hpp): the scripts complete commands, options and
// shells in the shell itself; bash is driven through its `complete -p` and the function it
// registered, zsh and fish are syntax-checked where installed.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

ProcessOutcome run(const std::vector<std::string>& argv) {
    Subprocess p(argv, {});
    return p.wait(std::chrono::seconds(60));
}

fs::path script_for(const std::string& shell) {
    const auto out = run({PINBENCH_EXE, "completion", shell});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    const fs::path path = fs::temp_directory_path() / ("pinbench-completion." + shell);
    write_file_atomically(path.string(), out.output);
    return path;
}

// What bash offers after the words typed (the last one being completed).
std::string bash_offers(const fs::path& script, const std::string& words) {
    const std::string program =
        "source \"$0\"; complete -p pinbench >/dev/null || exit 9; COMP_WORDS=(" + words +
        "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); "
        "_pinbench_complete; ((${#COMPREPLY[@]} == 0)) || printf '%s\\n' \"${COMPREPLY[@]}\"";
    const auto out = run({"/bin/bash", "-c", program, script.string()});
    EXPECT_EQ(out.exit_code, 0) << out.output;
    return out.output;
}

// POSIX shells, on POSIX: under Wine "/bin/bash" is the host's bash, which cannot read the
// script's Windows path.
bool posix_shells() {
#ifdef _WIN32
    return false;
#else
    return true;
#endif
}

TEST(Completion, BashCompletesCommandsOptionsAndShells) {
    if (!posix_shells() || !fs::exists("/bin/bash"))
        GTEST_SKIP() << "no bash (a POSIX shell, tested on POSIX)";
    const fs::path script = script_for("bash");
    EXPECT_EQ(bash_offers(script, "pinbench ru"), "run\n");
    EXPECT_EQ(bash_offers(script, "pinbench do"), "doctor\n");
    EXPECT_EQ(bash_offers(script, "pinbench run --on"), "--only\n");
    EXPECT_EQ(bash_offers(script, "pinbench run quick --held"), "");  // budget's, not run's
    EXPECT_EQ(bash_offers(script, "pinbench budget --held"), "--held-only\n");
    EXPECT_EQ(bash_offers(script, "pinbench store a"), "add\n");
    EXPECT_EQ(bash_offers(script, "pinbench store add --st"), "--store\n");
    EXPECT_EQ(bash_offers(script, "pinbench completion z"), "zsh\n");
    EXPECT_EQ(bash_offers(script, "pinbench __ch"), "") << "internal commands are not offered";
    fs::remove(script);
}

TEST(Completion, EveryScriptNamesEveryCommand) {
    for (const std::string shell : {"bash", "zsh", "fish", "powershell"}) {
        const auto out = run({PINBENCH_EXE, "completion", shell});
        EXPECT_EQ(out.exit_code, 0) << shell << out.output;
        for (const char* word : {"doctor", "run", "budget", "held-only", "completion"}) {
            EXPECT_NE(out.output.find(word), std::string::npos) << shell << ": " << word;
        }
        EXPECT_EQ(out.output.find("__child"), std::string::npos) << shell;
    }
    const auto bad = run({PINBENCH_EXE, "completion", "tcsh"});
    EXPECT_EQ(bad.exit_code, 2) << bad.output;
}

TEST(Completion, ZshAndFishScriptsParse) {
    if (!posix_shells()) GTEST_SKIP() << "POSIX shells, tested on POSIX";
    for (const auto& [shell, check] : {std::pair<std::string, std::string>{"zsh", "/usr/bin/zsh"},
                                       std::pair<std::string, std::string>{"fish", "/usr/bin/fish"}}) {
        if (!fs::exists(check)) continue;
        const fs::path script = script_for(shell);
        const auto out = run({check, "-n", script.string()});
        EXPECT_EQ(out.exit_code, 0) << shell << "\n" << out.output;
        fs::remove(script);
    }
}

}  // namespace
}  // namespace pinbench
