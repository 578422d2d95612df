// Which file a child program's name starts (platform/program_search.hpp): a bare name only from
// PATH's absolute folders, never the current folder; a name with a folder as given. The rule is
// stated over generated PATH values of every kind of entry, both styles, then checked on a real
// start: a program planted in the current folder with PATH="." (or an empty entry) never runs.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "pinbench/platform/subprocess.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "platform/program_search.hpp"
#include "temp_dir.hpp"

namespace pinbench {
namespace {

using testing_support::TempDir;

// Every kind of PATH entry: absolute ones, and the relative ones that name the current folder
// or one below it (the empty entry too), in both styles, with letters a path may hold.
const std::vector<std::string> kPosixAbsolute = {"/usr/bin", "/opt/tool/", "/home/José Müller/bin", "/"};
const std::vector<std::string> kPosixRelative = {"", ".", "..", "bin", "./bin", "../x", "~/bin", " /usr/bin"};
const std::vector<std::string> kWindowsAbsolute = {
    "C:\\Windows\\system32",  "C:/Python312/Scripts", "\"C:\\Program Files\\Tool\"",
    "\\\\server\\share\\bin", "D:\\田中\\",           "\\\\?\\C:\\long"};
const std::vector<std::string> kWindowsRelative = {"",      ".",     "..",   "bin",  ".\\bin",
                                                   "C:bin", "\\bin", "\"\"", "\".\""};

struct Generated {
    std::string path;
    std::vector<std::string> absolute;  // the absolute entries, in order, as the folders to expect
};

Generated generate(std::mt19937& rng, PathStyle style) {
    const auto& absolute = style == PathStyle::posix ? kPosixAbsolute : kWindowsAbsolute;
    const auto& relative = style == PathStyle::posix ? kPosixRelative : kWindowsRelative;
    const char separator = style == PathStyle::posix ? ':' : ';';
    Generated g;
    const int n = std::uniform_int_distribution<int>(0, 8)(rng);
    for (int i = 0; i < n; ++i) {
        if (i > 0) g.path += separator;
        if (std::bernoulli_distribution(0.5)(rng)) {
            const std::string& entry =
                absolute[std::uniform_int_distribution<std::size_t>(0, absolute.size() - 1)(rng)];
            g.path += entry;
            std::string folder = entry;
            if (folder.size() >= 2 && folder.front() == '"') folder = folder.substr(1, folder.size() - 2);
            g.absolute.push_back(folder);
        } else {
            g.path += relative[std::uniform_int_distribution<std::size_t>(0, relative.size() - 1)(rng)];
        }
    }
    return g;
}

std::string folder_of(const std::string& candidate, PathStyle style) {
    const auto slash = candidate.find_last_of(style == PathStyle::posix ? "/" : "\\/");
    return candidate.substr(0, slash + 1);
}

TEST(ProgramSearch, ABareNameIsLookedForInPathsAbsoluteFoldersOnlyInOrder) {
    std::mt19937 rng(20240501);
    for (const PathStyle style : {PathStyle::posix, PathStyle::windows}) {
        for (int round = 0; round < 3000; ++round) {
            const Generated g = generate(rng, style);
            const auto candidates = program_candidates("pinreport", g.path, style);
            ASSERT_EQ(candidates.size(), g.absolute.size()) << g.path;
            const std::string file = style == PathStyle::posix ? "pinreport" : "pinreport.exe";
            for (std::size_t i = 0; i < candidates.size(); ++i) {
                const std::string& c = candidates[i];
                EXPECT_TRUE(is_absolute_folder(folder_of(c, style), style)) << c << " from " << g.path;
                EXPECT_EQ(c.substr(c.size() - file.size()), file) << c;
                // the entry's folder, with one separator before the name
                std::string want = g.absolute[i];
                const char last = want.back();
                if (last != '/' && last != '\\') want += style == PathStyle::posix ? "/" : "\\";
                EXPECT_EQ(c, want + file) << g.path;
            }
            // Whatever exists, nothing from the current folder is ever the answer.
            const auto found =
                resolve_program("pinreport", g.path, style, [](const std::string&) { return true; });
            if (g.absolute.empty()) {
                EXPECT_FALSE(found) << g.path;
            } else {
                ASSERT_TRUE(found);
                EXPECT_EQ(*found, candidates.front());
            }
        }
    }
}

TEST(ProgramSearch, ANameWithAFolderIsUsedAsGivenAndNeverSearched) {
    for (const std::string name : {"./pinreport", "sub/pinreport", "/usr/bin/pinreport"}) {
        EXPECT_TRUE(program_candidates(name, "/usr/bin:.", PathStyle::posix).empty()) << name;
        EXPECT_EQ(
            resolve_program(name, "/usr/bin", PathStyle::posix, [](const std::string&) { return false; }),
            name);
    }
    for (const std::string name :
         {"C:\\venv\\Scripts\\pinreport.exe", ".\\pinreport.exe", "sub/x.exe", "C:x.exe"}) {
        EXPECT_TRUE(program_candidates(name, "C:\\bin", PathStyle::windows).empty()) << name;
        EXPECT_EQ(
            resolve_program(name, "C:\\bin", PathStyle::windows, [](const std::string&) { return true; }),
            name);
    }
    // CreateProcess runs C:\x\pinreport for C:\x\pinreport.exe; so does the rule, when only that is there.
    const auto only_exe = [](const std::string& p) { return p == "C:\\x\\pinreport.exe"; };
    EXPECT_EQ(resolve_program("C:\\x\\pinreport", "", PathStyle::windows, only_exe), "C:\\x\\pinreport.exe");
    EXPECT_EQ(resolve_program("C:\\y\\pinreport", "", PathStyle::windows, only_exe), "C:\\y\\pinreport");
}

TEST(ProgramSearch, WindowsAppendsExeOnlyToANameWithoutExtension) {
    EXPECT_EQ(program_candidates("python", "C:\\P", PathStyle::windows),
              std::vector<std::string>{"C:\\P\\python.exe"});
    EXPECT_EQ(program_candidates("run.cmd", "C:\\P", PathStyle::windows),
              std::vector<std::string>{"C:\\P\\run.cmd"});
    EXPECT_EQ(program_candidates(".hidden", "C:\\P", PathStyle::windows),
              std::vector<std::string>{"C:\\P\\.hidden.exe"});
    EXPECT_EQ(program_candidates("python", "/usr/bin", PathStyle::posix),
              std::vector<std::string>{"/usr/bin/python"});
    EXPECT_TRUE(program_candidates("", "/usr/bin", PathStyle::posix).empty());
    EXPECT_FALSE(resolve_program("", "/usr/bin", PathStyle::posix, [](const std::string&) { return true; }));
}

TEST(ProgramSearch, AbsoluteFolders) {
    for (const std::string f : {"C:\\", "c:/x", "\\\\server\\share", "\\\\?\\C:\\x"}) {
        EXPECT_TRUE(is_absolute_folder(f, PathStyle::windows)) << f;
    }
    for (const std::string f : {"", "C:", "C:x", "\\x", "/x", "x", ".", "\\\\", "\\\\\\x"}) {
        EXPECT_FALSE(is_absolute_folder(f, PathStyle::windows)) << f;
    }
    EXPECT_TRUE(is_absolute_folder("/", PathStyle::posix));
    for (const std::string f : {"", ".", "x/y", "C:\\x"})
        EXPECT_FALSE(is_absolute_folder(f, PathStyle::posix)) << f;
}

#ifndef _WIN32
// PATH is this process's: set for one test, then put back.
class PathVariable {
public:
    explicit PathVariable(const std::string& value) {
        if (const char* old = std::getenv("PATH")) old_ = old;
        ::setenv("PATH", value.c_str(), 1);
    }
    ~PathVariable() { ::setenv("PATH", old_.c_str(), 1); }
    PathVariable(const PathVariable&) = delete;
    PathVariable& operator=(const PathVariable&) = delete;

private:
    std::string old_ = "/usr/bin:/bin";
};

// A program planted in the current folder, under a bare name that PATH="." or an empty entry
// would find (posix_spawnp and execvp do): it is never started.
TEST(ProgramSearch, AProgramPlantedInTheCurrentFolderNeverRuns) {
    TempDir dir("program-search");
    const std::filesystem::path planted = dir.path() / "pinbench-planted-program";
    const std::filesystem::path marker = dir.path() / "it-ran";
    {
        std::ofstream out(planted);
        out << "#!/bin/sh\n: > '" << marker.string() << "'\n";
    }
    std::filesystem::permissions(planted, std::filesystem::perms::owner_all);
    const auto old_cwd = std::filesystem::current_path();
    std::filesystem::current_path(dir.path());
    for (const std::string path : {".", "", "/usr/bin::/bin", "/usr/bin:."}) {
        const PathVariable set(path);
        EXPECT_THROW(Subprocess({"pinbench-planted-program"}, {}), SystemError) << "PATH=" << path;
        EXPECT_THROW(tied_command({"pinbench-planted-program"}), SystemError) << "PATH=" << path;
    }
    // Named with its folder, it is the user's choice, and runs.
    {
        Subprocess named({"./pinbench-planted-program"}, {});
        EXPECT_EQ(named.wait(std::chrono::seconds(10)).exit_code, 0);
    }
    std::filesystem::current_path(old_cwd);
    EXPECT_TRUE(std::filesystem::exists(marker));
    std::filesystem::remove(marker);
    // Along an absolute PATH folder it is found.
    {
        const PathVariable set(dir.path().string());
        Subprocess found({"pinbench-planted-program"}, {});
        EXPECT_EQ(found.wait(std::chrono::seconds(10)).exit_code, 0);
    }
    EXPECT_TRUE(std::filesystem::exists(marker));
}
#endif

}  // namespace
}  // namespace pinbench
