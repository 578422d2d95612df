// Every file in fixtures/scenarios/bad/ must be rejected with an InputError pointing at the line
// and column named in its first line ("# expect: LINE:COL message substring"), both in process
// and through `pinbench plan` (exit code 2, the same message as the first line of output).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "pinbench/platform/subprocess.hpp"
#include "pinbench/results/metric_catalog.hpp"
#include "pinbench/scenario/scenario.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

struct BadFixture {
    std::string path;
    int line = 0;
    int column = 0;
    std::string message;  // substring of what()
};

std::vector<BadFixture> bad_fixtures() {
    std::vector<BadFixture> out;
    const std::regex header(R"(^# expect: (\d+):(\d+) (.+)$)");
    for (const auto& entry : fs::directory_iterator(std::string(PINBENCH_FIXTURES) + "/scenarios/bad")) {
        if (entry.path().extension() != ".yaml") {
            continue;
        }
        BadFixture f;
        f.path = entry.path().string();
        std::ifstream in(f.path);
        std::string first;
        std::getline(in, first);
        if (!first.empty() && first.back() == '\r') {
            first.pop_back();  // CRLF checkouts
        }
        std::smatch m;
        if (!std::regex_match(first, m, header)) {
            ADD_FAILURE() << f.path << ": first line is not '# expect: LINE:COL message': " << first;
            continue;
        }
        f.line = std::stoi(m[1]);
        f.column = std::stoi(m[2]);
        f.message = m[3];
        out.push_back(std::move(f));
    }
    std::sort(out.begin(), out.end(),
              [](const BadFixture& a, const BadFixture& b) { return a.path < b.path; });
    return out;
}

// what() of the error the fixture raises in process, or "" (with a test failure) if none.
std::string expected_error(const BadFixture& f) {
    try {
        load_scenario_file(f.path, unknown_metric_reason);
    } catch (const InputError& e) {
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "not an InputError: " << e.what();
        return "";
    }
    ADD_FAILURE() << "accepted";
    return "";
}

TEST(MalformedScenarios, EnoughFixtures) { EXPECT_GE(bad_fixtures().size(), 24u); }

TEST(MalformedScenarios, EachFixtureIsRejectedAtItsLocation) {
    for (const BadFixture& f : bad_fixtures()) {
        SCOPED_TRACE(f.path);
        try {
            load_scenario_file(f.path, unknown_metric_reason);
            ADD_FAILURE() << "accepted";
        } catch (const InputError& e) {
            const std::string what = e.what();
            const std::string prefix =
                f.path + ":" + std::to_string(f.line) + ":" + std::to_string(f.column) + ": ";
            EXPECT_EQ(what.substr(0, prefix.size()), prefix) << what;
            EXPECT_NE(what.find(f.message, prefix.size()), std::string::npos)
                << "message '" << f.message << "' not in: " << what;
            EXPECT_EQ(e.file(), f.path);
            EXPECT_EQ(e.line(), f.line);
            EXPECT_EQ(e.column(), f.column);
            EXPECT_EQ(what.find('\n'), std::string::npos) << "one line: " << what;
        } catch (const std::exception& e) {
            ADD_FAILURE() << "not an InputError: " << e.what();
        }
    }
}

// End to end: the CLI reports the same message and exits with the bad-input code.
TEST(MalformedScenariosCli, PlanReportsTheSameErrorAndExitsWith2) {
    for (const BadFixture& f : bad_fixtures()) {
        SCOPED_TRACE(f.path);
        const std::string expected = expected_error(f);
        Subprocess child({PINBENCH_EXE, "plan", f.path}, {});
        const ProcessOutcome out = child.wait(std::chrono::seconds(30));
        ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
        EXPECT_EQ(out.exit_code, exit_code::bad_input) << out.output;
        std::string first_line = out.output.substr(0, out.output.find('\n'));
        if (!first_line.empty() && first_line.back() == '\r') {
            first_line.pop_back();
        }
        EXPECT_EQ(first_line, expected) << out.output;
    }
}

// --repeat-timeout has the limit of timeout_s (1e16 s overflowed into "timed out after 0 s").
TEST(MalformedScenariosCli, RepeatTimeoutOverAWeekIsRefused) {
    Subprocess child(
        {PINBENCH_EXE, "run", "--repeat-timeout", "1e16", "--backend", "replay", "--from",
         std::string(PINBENCH_SOURCE_DIR) + "/results/h200-smoke/results.json", "-o", "unused.json"},
        {});
    const ProcessOutcome out = child.wait(std::chrono::seconds(30));
    ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
    EXPECT_EQ(out.exit_code, exit_code::bad_input) << out.output;
    EXPECT_NE(out.output.find("--repeat-timeout: '1e16' is out of range (expected above 0 and up to 604800)"),
              std::string::npos)
        << out.output;
    EXPECT_NE(out.output.find("604800"), std::string::npos) << out.output;
}

}  // namespace
}  // namespace pinbench
