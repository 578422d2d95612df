// Which file DynamicLibrary loads on Windows (harness/src/platform/dynamic_library_win32.cpp): a
// DLL planted in the current folder is never loaded by name (nvml.dll once was), a relative
// path is refused, an absolute path loads that file, and a bare name comes from System32.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>

#include "pinbench/platform/dynamic_library.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    return s;
}

// The current folder, for one test: a fresh one holding a copy of the planted DLL.
class PlantedFolder {
public:
    PlantedFolder() : dir_("pinbench_planted"), old_(fs::current_path()) {
        fs::copy_file(PINBENCH_PLANTED_LIBRARY, dir_.path() / kName);
        fs::current_path(dir_.path());
    }
    ~PlantedFolder() { fs::current_path(old_); }
    PlantedFolder(const PlantedFolder&) = delete;
    PlantedFolder& operator=(const PlantedFolder&) = delete;
    std::string absolute() const { return (dir_.path() / kName).string(); }

    static constexpr const char* kName = "pinbench_planted_test.dll";

private:
    testing_support::TempDir dir_;
    fs::path old_;
};

TEST(DynamicLibraryWin32, ALibraryPlantedInTheCurrentFolderIsNeverLoadedByName) {
    PlantedFolder planted;
    std::string why;
    EXPECT_EQ(DynamicLibrary::open({PlantedFolder::kName}, &why), nullptr)
        << "loaded from the current folder";
    EXPECT_NE(why.find("System32 only"), std::string::npos) << why;
    why.clear();
    EXPECT_EQ(DynamicLibrary::open_system(PlantedFolder::kName, &why), nullptr);
    EXPECT_NE(why.find(PlantedFolder::kName), std::string::npos) << why;
}

TEST(DynamicLibraryWin32, ARelativePathIsRefusedWithTheReason) {
    PlantedFolder planted;
    for (const std::string name :
         {std::string(".\\") + PlantedFolder::kName, std::string("./") + PlantedFolder::kName}) {
        std::string why;
        EXPECT_EQ(DynamicLibrary::open({name}, &why), nullptr) << name;
        EXPECT_NE(why.find("never relative to the current folder"), std::string::npos) << why;
    }
}

TEST(DynamicLibraryWin32, AnAbsolutePathLoadsThatFileAndSaysSo) {
    PlantedFolder planted;
    std::string why;
    const auto library = DynamicLibrary::open({"pinbench_no_such_library.dll", planted.absolute()}, &why);
    ASSERT_NE(library, nullptr) << why;
    EXPECT_EQ(lower(library->loaded_name()), lower(planted.absolute()));
    using Fn = int (*)();
    const auto fn = reinterpret_cast<Fn>(library->symbol("pinbench_planted_library"));
    ASSERT_NE(fn, nullptr);
    EXPECT_EQ(fn(), 42);
}

TEST(DynamicLibraryWin32, ABareNameIsLoadedFromSystem32) {
    std::string why;
    const auto library = DynamicLibrary::open({"version.dll"}, &why);
    ASSERT_NE(library, nullptr) << why;
    EXPECT_NE(lower(library->loaded_name()).find("\\system32\\version.dll"), std::string::npos)
        << library->loaded_name();
}

}  // namespace
}  // namespace pinbench
