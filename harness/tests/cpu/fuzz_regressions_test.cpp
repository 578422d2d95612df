// Every input a fuzzer (harness/fuzz, ci/fuzz.sh) or a hostile-input report once broke a reader
// with, kept as a regression test: harness/tests/fixtures/fuzz-regressions/<target>/, fed to the
// same entry points the libFuzzer targets call (fuzz/fuzz_entries.hpp), here in the ordinary
// build. Each must end in InputError or be read (no other exception), within seconds.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>

#include "../../fuzz/fuzz_entries.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

void replay_all(const std::string& target,
                const std::function<void(const std::uint8_t*, std::size_t)>& entry) {
    const fs::path dir = fs::path(PINBENCH_FIXTURES) / "fuzz-regressions" / target;
    ASSERT_TRUE(fs::is_directory(dir)) << dir;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (e.path().filename() == "README.md") continue;
        SCOPED_TRACE(e.path().string());
        std::ifstream in(e.path(), std::ios::binary);
        const std::string bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
        const auto start = std::chrono::steady_clock::now();
        EXPECT_NO_THROW(entry(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
        EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(10));
    }
}

TEST(FuzzRegressions, ScenarioReader) { replay_all("scenario", fuzz::scenario); }
TEST(FuzzRegressions, ResultsReader) { replay_all("results", fuzz::results); }
TEST(FuzzRegressions, TraceReader) { replay_all("trace", fuzz::trace); }
#ifndef _WIN32
TEST(FuzzRegressions, OutputTarget) { replay_all("output_target", fuzz::output_target); }
#endif

}  // namespace
}  // namespace pinbench
