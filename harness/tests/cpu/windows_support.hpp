// Support for the Windows tests (tests/cpu/*_win32_test.cpp), which ci/check_windows.sh runs
// under Wine: detecting Wine, skipping what Wine cannot do (always with the reason), and the
// helper program the process tests start (win32_test_child.cpp).
#pragma once

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

namespace pinbench::testing_support {

// Wine's version ("8.0") when this process runs under Wine (ntdll exports wine_get_version),
// nullopt on Windows.
std::optional<std::string> wine_version();

// The helper program's path and an argv that runs it in `mode` (win32_test_child.cpp).
std::string test_child_path();
std::vector<std::string> test_child(const std::string& mode, const std::vector<std::string>& args = {});

}  // namespace pinbench::testing_support

// Skips the test under Wine, printing why; on Windows the test runs.
#define PINBENCH_SKIP_UNDER_WINE(reason)                                   \
    do {                                                                   \
        if (const auto wine = ::pinbench::testing_support::wine_version()) \
            GTEST_SKIP() << "under Wine " << *wine << ": " << (reason);    \
    } while (false)
