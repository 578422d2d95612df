// UTF-8 at the OS border on Windows (pinbench/platform/utf8.hpp, pinbench/platform/process_info.hpp): a
// child's arguments and environment reach it in UTF-8 whatever the ANSI code page (ci/wine_unicode.sh runs
// the whole program so under code pages 1252 and 932). Run under Wine by ci/check_windows.sh.
#include <gtest/gtest.h>
#include <windows.h>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "pinbench/platform/subprocess.hpp"
#include "pinbench/platform/utf8.hpp"
#include "windows_support.hpp"

namespace pinbench {
namespace {

using namespace std::chrono_literals;
using testing_support::test_child;

const std::string kName = "Jos\xC3\xA9 M\xC3\xBCller \xE7\x94\xB0\xE4\xB8\xAD";  // José Müller 田中
const wchar_t* const kWideName = L"Jos\u00E9 M\u00FCller \u7530\u4E2D";

std::string output_of(const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) {
    Subprocess p(argv, env);
    const ProcessOutcome o = p.wait(20s);
    EXPECT_EQ(o.kind, ProcessOutcome::Kind::exited);
    EXPECT_EQ(o.exit_code, 0) << o.output;
    return o.output;
}

// The child prints program_arguments() after its mode, joined by '|': each as it was given, in
// UTF-8, where main's argv holds them in the ANSI code page ("Jos\xE9 M\xFCller ??" in 1252).
TEST(Utf8Win32, ArgumentsArriveInUtf8) {
    const std::string quoted = "\"" + kName + "\" \\";
    EXPECT_EQ(output_of(test_child("arguments", {kName, "two words", quoted, ""}), {}),
              kName + "|two words|" + quoted + "|");
}

// environment_variable() in the child: the value set for it, in UTF-8.
TEST(Utf8Win32, EnvironmentArrivesInUtf8) {
    EXPECT_EQ(output_of(test_child("utf8-env", {"PINBENCH_UTF8_TEST"}), {{"PINBENCH_UTF8_TEST", kName}}),
              kName);
}

TEST(Utf8Win32, EnvironmentVariableReadsTheWideEnvironment) {
    ASSERT_TRUE(::SetEnvironmentVariableW(L"PINBENCH_UTF8_DIRECT", kWideName));
    EXPECT_EQ(environment_variable("PINBENCH_UTF8_DIRECT"), kName);
    // Longer than the first buffer (256 units): read whole.
    std::wstring long_value;
    std::string long_utf8;
    for (int i = 0; i < 1000; ++i) {
        long_value += kWideName;
        long_utf8 += kName;
    }
    ASSERT_TRUE(::SetEnvironmentVariableW(L"PINBENCH_UTF8_DIRECT", long_value.c_str()));
    EXPECT_EQ(environment_variable("PINBENCH_UTF8_DIRECT"), long_utf8);
    ASSERT_TRUE(::SetEnvironmentVariableW(L"PINBENCH_UTF8_DIRECT", L""));
    EXPECT_EQ(environment_variable("PINBENCH_UTF8_DIRECT"), std::string());
    ASSERT_TRUE(::SetEnvironmentVariableW(L"PINBENCH_UTF8_DIRECT", nullptr));
    EXPECT_EQ(environment_variable("PINBENCH_UTF8_DIRECT"), std::nullopt);
}

}  // namespace
}  // namespace pinbench
