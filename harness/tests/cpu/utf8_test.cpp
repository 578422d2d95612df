// UTF-8 at the OS border (pinbench/platform/utf8.hpp): paths made from UTF-8 and turned back, non-ASCII
// letters and text that is not UTF-8, on every platform (Linux in CTest, Windows under Wine by
// ci/check_windows.sh); the Windows side of arguments and environment: utf8_win32_test.cpp.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/utf8.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "temp_dir.hpp"

namespace pinbench {
namespace {

// "José Müller 田中" in UTF-8, spelled in bytes so no compiler's source or execution character
// set can change them.
const std::string kName = "Jos\xC3\xA9 M\xC3\xBCller \xE7\x94\xB0\xE4\xB8\xAD";
const std::string kEmoji = "\xF0\x9F\x98\x80";  // U+1F600: two UTF-16 units (a surrogate pair)

TEST(Utf8Path, NonAsciiNamesRoundTrip) {
    for (const std::string& text : {kName, kEmoji, "a/b/" + kName + ".json", std::string("plain.yaml")}) {
        EXPECT_EQ(utf8_of(path_from_utf8(text)), text);
    }
    EXPECT_EQ(generic_utf8_of(path_from_utf8("dir") / path_from_utf8(kName)), "dir/" + kName);
    EXPECT_EQ(utf8_of(path_from_utf8(kName + ".json").filename()), kName + ".json");
    EXPECT_EQ(utf8_of(path_from_utf8(kName + ".json").stem()), kName);
#ifdef _WIN32
    // What Windows is given: the letters in UTF-16, not the bytes read in the ANSI code page.
    EXPECT_EQ(path_from_utf8(kName).native(), std::wstring(L"Jos\u00E9 M\u00FCller \u7530\u4E2D"));
    EXPECT_EQ(path_from_utf8(kEmoji).native(), std::wstring(L"\U0001F600"));
#endif
}

TEST(Utf8Path, TextThatIsNotUtf8) {
    const std::vector<std::string> invalid = {
        "bad\xFF",        // a byte UTF-8 never has
        "cut\xC3",        // a sequence cut short
        "\xC0\xAF",       // an overlong '/'
        "\xED\xA0\x80",   // a surrogate, encoded
        "\xE9t\xE9.yaml"  // "été" in code page 1252, as an ANSI argv gave it
    };
    for (const std::string& text : invalid) {
#ifdef _WIN32
        // Refused as bad input, the bytes shown escaped (printable whatever they were).
        try {
            (void)path_from_utf8(text);
            ADD_FAILURE() << "accepted text that is not UTF-8";
        } catch (const InputError& e) {
            EXPECT_NE(std::string(e.what()).find("not valid UTF-8"), std::string::npos) << e.what();
            EXPECT_EQ(std::string(e.what()).find_first_of("\x80\xFF"), std::string::npos) << e.what();
        }
#else
        // A POSIX file name is bytes: taken and given back as they are.
        EXPECT_EQ(utf8_of(path_from_utf8(text)), text);
#endif
    }
#ifdef _WIN32
    try {
        (void)path_from_utf8("bad\xFF");
    } catch (const InputError& e) {
        EXPECT_NE(std::string(e.what()).find("'bad\\xFF'"), std::string::npos) << e.what();
    }
    // A name no UTF-8 can spell (an unpaired surrogate) comes back as U+FFFD, still UTF-8.
    EXPECT_EQ(utf8_of(std::filesystem::path(std::wstring{L'a', static_cast<wchar_t>(0xD800), L'b'})),
              "a\xEF\xBF\xBD"
              "b");
#endif
}

TEST(Utf8Path, FilesAndFoldersWithNonAsciiNames) {
    const testing_support::TempDir tmp("pinbench_utf8");
    const std::string dir = utf8_of(tmp.path() / path_from_utf8(kName));
    std::filesystem::create_directories(path_from_utf8(dir));
    const std::string file = utf8_of(path_from_utf8(dir) / path_from_utf8(kName + ".json"));
    const std::string contents = "{\"name\": \"" + kName + "\"}";
    write_file_atomically(file, contents);
    EXPECT_EQ(read_file(file), contents);
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(path_from_utf8(dir))) {
        names.push_back(utf8_of(e.path().filename()));
    }
    EXPECT_EQ(names, std::vector<std::string>{kName + ".json"});
    EXPECT_TRUE(std::filesystem::is_regular_file(path_from_utf8(file)));
}

#ifndef _WIN32
TEST(Utf8Environment, ReadsVariablesAsTheyAre) {
    ::setenv("PINBENCH_UTF8_TEST", kName.c_str(), 1);
    EXPECT_EQ(environment_variable("PINBENCH_UTF8_TEST"), kName);
    ::setenv("PINBENCH_UTF8_TEST", "", 1);
    EXPECT_EQ(environment_variable("PINBENCH_UTF8_TEST"), std::string());
    ::unsetenv("PINBENCH_UTF8_TEST");
    EXPECT_EQ(environment_variable("PINBENCH_UTF8_TEST"), std::nullopt);
}
#endif

}  // namespace
}  // namespace pinbench
