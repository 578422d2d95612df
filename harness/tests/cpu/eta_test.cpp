// The progress line's eta (run/eta.hpp) on the committed H200 answer's repeat times
// (results/h200-main-answer/quick.json): from a store's earlier times it is right from the start
// and within 20% once a tenth of the work is done, on a machine 30% slower too; without them it
// learns from the plan's own first repeats.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>

#include "pinbench/platform/subprocess.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/store/store.hpp"
#include "results/repeat_times.hpp"
#include "run/eta.hpp"
#include "store/earlier_times.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

const std::string answer = std::string(PINBENCH_SOURCE_DIR) + "/results/h200-main-answer/quick.json";

std::vector<PlannedRun> plan_of(const ResultsDocument& doc) {
    std::vector<PlannedRun> runs;
    for (const auto& r : doc.runs) runs.push_back(r.run);
    return runs;
}

// Seconds an attempt took, as RepeatTimes counts them.
double seconds_of(const RepeatRecord& r) { return (r.wall_ms + r.parent_wait_ms) / 1000; }

// Plays the answer's first 3 repeats of every run (what the stopping rule measures there),
// `slower` times as long, into `eta`; returns the largest error of the eta against the time
// really left, as a fraction of it, once a tenth of the work was done (and while at least 10 s
// were left: a few seconds off near the end is no lie).
double worst_error_after_a_tenth(const ResultsDocument& doc, EtaModel eta, double slower) {
    std::vector<std::pair<std::size_t, double>> steps;
    for (std::size_t i = 0; i < doc.runs.size(); ++i) {
        const auto& reps = doc.runs[i].repeats;
        for (std::size_t k = 0; k < std::min<std::size_t>(reps.size(), 3); ++k) {
            steps.emplace_back(i, seconds_of(reps[k]) * slower);
        }
    }
    double total = 0;
    for (const auto& [i, s] : steps) total += s;
    double done = 0, worst = 0;
    std::size_t last_run = 0;
    for (const auto& [i, s] : steps) {
        for (; last_run < i; ++last_run) eta.run_finished(last_run);  // a waived run among them
        eta.attempt_done(i, s, true);
        done += s;
        const double left = total - done;
        if (done >= total / 10 && left >= 10)
            worst = std::max(worst, std::abs(eta.remaining_s() - left) / left);
    }
    return worst;
}

TEST(Eta, FromTheStoresTimesItIsRightFromTheStart) {
    const ResultsDocument doc = load_results(answer);
    RepeatTimes times;
    for (const auto& r : doc.runs) times.add(r);
    // Before any repeat: every run's own time per repeat, times the 3 repeats it will measure.
    double expected = 0;
    for (const auto& r : doc.runs) {
        if (r.repeats.empty()) {
            expected += 3 * times.per_repeat(r.run).value_or(0);  // a run never measured: its kind's time
            continue;
        }
        double s = 0;
        for (const auto& rep : r.repeats) s += seconds_of(rep);
        expected += s / static_cast<double>(r.repeats.size()) * std::min(r.run.repeats, 3);
    }
    const EtaModel eta(plan_of(doc), times, 3);
    EXPECT_NEAR(eta.remaining_s(), expected, 1e-6);
    EXPECT_GT(expected, 90.0);  // 106 repeats of about a second
    EXPECT_LT(expected, 130.0);
    // Not 0: a run's first 3 repeats are not the mean of the 5 stored (the x64 runs' first is slower).
    EXPECT_LE(worst_error_after_a_tenth(doc, EtaModel(plan_of(doc), times, 3), 1.0), 0.15);
    EXPECT_LE(worst_error_after_a_tenth(doc, EtaModel(plan_of(doc), times, 3), 1.3), 0.20)
        << "a slower machine: the stored times scaled by how it compares so far";
}

TEST(Eta, WithoutStoredTimesItLearnsFromThePlansOwnRepeats) {
    const ResultsDocument doc = load_results(answer);
    EtaModel eta(plan_of(doc), {}, 3);
    EXPECT_NEAR(eta.remaining_s(), 3.0 * 36, 1e-6) << "1 s a repeat until one is measured";
    eta.attempt_done(0, 0.5, true);
    // Every run: 3 repeats at the 0.5 s the first overhead repeat took (the first run has 2 left).
    EXPECT_NEAR(eta.remaining_s(), 0.5 * (3 * 36 - 1), 1e-6);
    // Its first runs (overhead, up to 1 GiB) say little of the later kinds': on this plan this eta
    // is up to 61% off after a tenth of the work, which is why ci/main.sh gives earlier times
    // (its store, else the committed answer's file) and the next test asks 20% of those.
}

TEST(Eta, AResultsFileOfAnotherMachineIsScaledToThisOne) {
    const ResultsDocument doc = load_results(answer);
    std::string note;
    const RepeatTimes times = repeat_times_from_store(answer, nlohmann::json::object(), 3, &note);
    EXPECT_EQ(note, "eta from the repeat times of " + answer);
    EXPECT_LE(worst_error_after_a_tenth(doc, EtaModel(plan_of(doc), times, 3), 0.6), 0.20)
        << "a faster machine";
    EXPECT_LE(worst_error_after_a_tenth(doc, EtaModel(plan_of(doc), times, 3), 1.5), 0.20) << "a slower one";
}

TEST(Eta, RepeatTimesComeFromTheStoreOfThisMachine) {
    testing_support::TempDir tmp("eta-store");
    const Store store = Store::open(tmp.file("store"));
    store.add(answer);
    const ResultsDocument doc = load_results(answer);
    std::string note;
    const RepeatTimes times = repeat_times_from_store(tmp.file("store"), doc.environment, 3, &note);
    EXPECT_EQ(note,
              "eta from the repeat times of 1 earlier results file of this machine in " + tmp.file("store"));
    ASSERT_TRUE(times.per_repeat(doc.runs[0].run).has_value());
    double s = 0;
    for (const auto& rep : doc.runs[0].repeats) s += seconds_of(rep);
    EXPECT_NEAR(*times.per_repeat(doc.runs[0].run), s / 5, 1e-9);

    nlohmann::json elsewhere = doc.environment;
    elsewhere["driver"]["release"] = "999.99";
    const RepeatTimes none = repeat_times_from_store(tmp.file("store"), elsewhere, 3, &note);
    EXPECT_TRUE(none.empty());
    EXPECT_EQ(note,
              "eta from this run's first repeats; no earlier run of this machine in " + tmp.file("store"));
    repeat_times_from_store(tmp.file("missing"), doc.environment, 3, &note);
    EXPECT_EQ(note, "eta from this run's first repeats; earlier repeat times unreadable: " +
                        tmp.file("missing") + ": no such store (the directory does not exist)");
}

TEST(Eta, TheNightlysEtaFromTheNightBeforeIsWithinAFifthOnceATenthIsDone) {
    // Two nightlies of nightly.yaml with the stopping rule on, one after the other on one H100
    // (results/answer-in-a-minute/fourth): the second's eta from the first's store, as
    // ci/nightly.sh passes it (--times-from STORE). Copied, so the committed stores stay as they are.
    const std::string night =
        std::string(PINBENCH_SOURCE_DIR) + "/results/answer-in-a-minute/fourth/h100-2026-12-06/";
    testing_support::TempDir tmp("eta-nightly");
    namespace fs = std::filesystem;
    fs::copy(night + "nightly-new/store", tmp.file("first"), fs::copy_options::recursive);
    fs::copy(night + "nightly-new2/store", tmp.file("second"), fs::copy_options::recursive);
    const auto second = Store::open_existing(tmp.file("second")).list(true);
    ASSERT_EQ(second.size(), 1u);
    const ResultsDocument doc = load_stored_results(second[0]);
    std::string note;
    const RepeatTimes times = repeat_times_from_store(tmp.file("first"), doc.environment, 3, &note);
    EXPECT_EQ(note,
              "eta from the repeat times of 1 earlier results file of this machine in " + tmp.file("first"));
    EXPECT_LE(worst_error_after_a_tenth(doc, EtaModel(plan_of(doc), times, 3), 1.0), 0.20);
    EXPECT_LE(worst_error_after_a_tenth(doc, EtaModel(plan_of(doc), times, 3), 1.3), 0.20)
        << "a slower machine";
    // Learnt from its own first repeats (a first night, an empty store) it is far off: the
    // nightly's first runs are short overhead repeats, its later kinds pin gigabytes.
    EXPECT_GT(worst_error_after_a_tenth(doc, EtaModel(plan_of(doc), {}, 3), 1.0), 0.30);
}

TEST(Eta, ItsNoteIsOneSentenceInTheRunsOutput) {
    // What `pinbench run --times-from` prints: the note as written above, after "pinbench: " only.
    testing_support::TempDir tmp("eta-note");
    const std::string missing = tmp.file("missing");
    const std::string unreadable =
        "pinbench: eta from this run's first repeats; earlier repeat times unreadable: ";
    for (const auto& [from, line] :
         {std::pair{answer, "pinbench: eta from the repeat times of " + answer},
          std::pair{missing, unreadable + missing + ": no such store (the directory does not exist)"}}) {
        Subprocess p({PINBENCH_EXE, "run", "--backend", "replay", "--from", answer, "--only",
                      "quick-overhead/pageable/64MiB/*", "--times-from", from, "--no-summary", "-o",
                      tmp.file("out.json")},
                     {});
        const auto outcome = p.wait(std::chrono::minutes(2));
        ASSERT_EQ(outcome.exit_code, 0) << outcome.output;
        EXPECT_NE(outcome.output.find(line), std::string::npos) << outcome.output;
    }
}

}  // namespace
}  // namespace pinbench
