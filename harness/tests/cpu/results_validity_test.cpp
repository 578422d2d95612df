// The rules of a valid results file beyond its fields (docs/results-schema.md, "Rules beyond the
// schema"): the shared fixture set pinreport is tested on too
// (harness/tests/fixtures/results-validity/expected.tsv; reports/tests/test_results_validity.py).
// pinbench is run as a user runs it, `store add` and `results upgrade`: every rejected file is
// exit 2 with "FILE: <expected>", every accepted one is read.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "fixture_table.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

const std::string cases_dir = std::string(PINBENCH_FIXTURES) + "/results-validity/";

std::vector<std::pair<std::string, std::string>> cases() {
    return test::fixture_table(cases_dir + "expected.tsv");
}

ProcessOutcome run_cli(std::vector<std::string> args) {
    args.insert(args.begin(), PINBENCH_EXE);
    Subprocess p(args, {});
    return p.wait(std::chrono::seconds(60));
}

TEST(ResultsValidity, FixtureCoversEveryRule) {
    const auto all = cases();
    ASSERT_GE(all.size(), 10u);
    for (const char* phrase : {"duplicate run id", "differs from plan.id", "runs is empty", "has no run",
                               "interrupted is set", "is not a scenario", "accept"}) {
        bool found = false;
        for (const auto& c : all) found = found || c.second.find(phrase) != std::string::npos;
        EXPECT_TRUE(found) << phrase;
    }
}

TEST(ResultsValidity, ResultsUpgradeGivesTheSameAnswerAsPinreport) {
    testing_support::TempDir dir("pinbench_results_validity");
    for (const auto& [name, expected] : cases()) {
        SCOPED_TRACE(name);
        const std::string path = cases_dir + name;
        const auto out = run_cli({"results", "upgrade", path, "-o", dir.file("upgraded.json")});
        ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
        if (expected == "accept") {
            EXPECT_EQ(out.exit_code, 0) << out.output;
            continue;
        }
        EXPECT_EQ(out.exit_code, 2) << out.output;
        EXPECT_NE(out.output.find(path + ": " + expected), std::string::npos) << out.output;
    }
}

TEST(ResultsValidity, StoreAddRefusesEveryRejectedFile) {
    for (const auto& [name, expected] : cases()) {
        if (expected == "accept") continue;
        SCOPED_TRACE(name);
        testing_support::TempDir dir("pinbench_results_validity");
        const std::string path = cases_dir + name;
        const auto out = run_cli({"store", "add", path, "--store", dir.file("store")});
        ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
        EXPECT_EQ(out.exit_code, 2) << out.output;
        EXPECT_NE(out.output.find(path + ": " + expected), std::string::npos) << out.output;
    }
}

TEST(ResultsValidity, StoreAddTakesTheCompleteFile) {
    testing_support::TempDir dir("pinbench_results_validity");
    const auto out = run_cli({"store", "add", cases_dir + "accept_base.json", "--store", dir.file("store")});
    EXPECT_EQ(out.exit_code, 0) << out.output;
}

}  // namespace
}  // namespace pinbench
