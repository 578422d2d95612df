// std::filesystem's folder listing on Windows for paths of any length (platform/dirent_win32.cpp,
// in place of mingw-w64's _wopendir, which listed the current folder for a path longer than
// MAX_PATH): a long folder lists its own entries, remove_all removes it and nothing of the
// current folder, errors are the right ones, and `pinbench store add --store` of a new folder of
// 269 characters files the results (issue 54, item 7: it said "not empty" and left the folder).
#include <gtest/gtest.h>

#include <filesystem>
#include <set>
#include <string>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;
using testing_support::TempDir;

// `base` and folders below it until the absolute path has `length` characters.
fs::path folder_of_length(const fs::path& base, std::size_t length) {
    fs::path p = fs::absolute(base);
    while (p.native().size() + 1 + 60 < length) p /= std::wstring(50, L'd');
    const std::size_t rest = length - p.native().size() - 1;
    return p / std::wstring(rest, L'e');
}

// The current folder, for one test: a fresh one holding files a wrong listing would show.
class CurrentFolder {
public:
    CurrentFolder() : dir_("pinbench_dirent_cwd"), old_(fs::current_path()) {
        write_file_atomically((dir_.path() / "sentinel-of-the-current-folder.txt").string(), "keep\n");
        fs::current_path(dir_.path());
    }
    ~CurrentFolder() { fs::current_path(old_); }
    CurrentFolder(const CurrentFolder&) = delete;
    CurrentFolder& operator=(const CurrentFolder&) = delete;
    fs::path sentinel() const { return dir_.path() / "sentinel-of-the-current-folder.txt"; }

private:
    TempDir dir_;
    fs::path old_;
};

std::set<std::wstring> names_in(const fs::path& folder) {
    std::set<std::wstring> names;
    std::error_code ec;
    for (fs::directory_iterator it(folder, ec), end; !ec && it != end; it.increment(ec)) {
        names.insert(it->path().filename().native());
    }
    EXPECT_FALSE(ec) << ec.message();
    return names;
}

TEST(DirentWin32, AFolderLongerThanMaxPathListsItsOwnEntries) {
    const CurrentFolder cwd;
    TempDir base("pinbench_dirent");
    for (const std::size_t length :
         {std::size_t{259}, std::size_t{269}, std::size_t{400}, std::size_t{1000}}) {
        const fs::path folder = folder_of_length(base.path(), length);
        ASSERT_EQ(folder.native().size(), length);
        fs::create_directories(folder / "sub");
        write_file_atomically((folder / "a.txt").string(), "a\n");
        write_file_atomically((folder / "sub" / "b.txt").string(), "b\n");
        EXPECT_EQ(names_in(folder), (std::set<std::wstring>{L"a.txt", L"sub"})) << length;
        std::size_t walked = 0;
        for (const auto& e : fs::recursive_directory_iterator(folder)) {
            (void)e;
            ++walked;
        }
        EXPECT_EQ(walked, 3u) << length;  // a.txt, sub, sub\b.txt
        fs::remove_all(folder / "sub");
        EXPECT_EQ(names_in(folder), (std::set<std::wstring>{L"a.txt"})) << length;
        fs::remove(folder / "a.txt");
        EXPECT_TRUE(names_in(folder).empty()) << length;
        EXPECT_TRUE(fs::is_empty(folder)) << length;
    }
    EXPECT_TRUE(fs::exists(cwd.sentinel()));
}

TEST(DirentWin32, RemoveAllOfALongFolderRemovesItAndNothingOfTheCurrentFolder) {
    const CurrentFolder cwd;
    TempDir base("pinbench_dirent");
    const fs::path folder = folder_of_length(base.path(), 300);
    fs::create_directories(folder / "x" / "y");
    write_file_atomically((folder / "x" / "y" / "z.txt").string(), "z\n");
    EXPECT_EQ(fs::remove_all(folder), 4u);  // the folder, x, y, z.txt
    EXPECT_FALSE(fs::exists(folder));
    EXPECT_TRUE(fs::exists(cwd.sentinel())) << "remove_all reached into the current folder";
}

TEST(DirentWin32, AMissingFolderAndAFileAreTheErrorsTheyAre) {
    TempDir base("pinbench_dirent");
    std::error_code ec;
    fs::directory_iterator missing(folder_of_length(base.path(), 280), ec);
    EXPECT_EQ(ec, std::errc::no_such_file_or_directory) << ec.message();
    const fs::path file = base.path() / "file.txt";
    write_file_atomically(file.string(), "f\n");
    fs::directory_iterator not_a_folder(file, ec);
    EXPECT_EQ(ec, std::errc::not_a_directory) << ec.message();
}

// Issue 54, item 7: a new store folder of 269 characters.
TEST(DirentWin32, StoreAddIntoANewFolderOf269CharactersFilesTheResults) {
    const CurrentFolder cwd;
    TempDir base("pinbench_dirent");
    const fs::path store = folder_of_length(base.path(), 269);
    Subprocess add(
        {PINBENCH_EXE, "store", "add", std::string(PINBENCH_SOURCE_DIR) + "/results/h200-smoke/results.json",
         "--store", store.string()},
        {});
    const auto outcome = add.wait(std::chrono::seconds(120));
    EXPECT_EQ(outcome.exit_code, 0) << outcome.output;
    EXPECT_EQ(outcome.output.find("not empty"), std::string::npos) << outcome.output;
    EXPECT_TRUE(fs::exists(store / "store.json")) << outcome.output;
}

}  // namespace
}  // namespace pinbench
