// The fixtures the C++ side writes for pinreport's tests (reports/tests/written_by_cpp/): the
// committed copy must equal what the harness gives now; PINBENCH_WRITE_FIXTURES=1 rewrites it.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <nlohmann/json.hpp>
#include <string>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "test_paths.hpp"

namespace pinbench::fixtures {

// `name` is the fixture file's name; `suite` the CTest name that regenerates it.
inline void expect_committed_fixture(const std::string& name, const nlohmann::json& current,
                                     const std::string& suite) {
    const std::string path = std::string(PINBENCH_SOURCE_DIR) + "/reports/tests/written_by_cpp/" + name;
    const std::string regenerate = "; regenerate: PINBENCH_WRITE_FIXTURES=1 ctest -R " + suite;
    if (std::getenv("PINBENCH_WRITE_FIXTURES") != nullptr)
        write_file_atomically(path, current.dump(2) + "\n");
    std::string committed;
    try {
        committed = read_file(path);
    } catch (const SystemError& e) {
        FAIL() << e.what() << regenerate;
    }
    // Compared as JSON: a checkout that turns line ends into CRLF holds the same fixture.
    EXPECT_EQ(nlohmann::json::parse(committed, nullptr, false), current) << path << " is stale" << regenerate;
}

}  // namespace pinbench::fixtures
