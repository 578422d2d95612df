// What the results' controls say of the parent's device watch (run/watch_summary.hpp): its reads
// and their cost summed over the attempts, the level it judged at (process lists, or device usage
// only when NVML gave none, with the first reason), and nothing of a watch that did not run.
#include <gtest/gtest.h>

#include <string>

#include "run/watch_summary.hpp"

namespace pinbench {
namespace {

WatchedAttempt attempt(long long reads, double read_ms, std::string no_process_list = "") {
    WatchedAttempt a;
    a.watch_reads = reads;
    a.watch_read_ms = read_ms;
    a.no_process_list = std::move(no_process_list);
    return a;
}

TEST(WatchSummary, SumsTheReadsAndTheirCostOverTheAttempts) {
    const WatchOptions options;
    WatchSummary summary(options);
    summary.add(attempt(10, 1.0));
    summary.add(attempt(30, 3.0));
    summary.between_runs(nullptr, WatchPlan{}, "run-1");  // no NVML: no null window
    nlohmann::json controls = nlohmann::json::object();
    summary.write(controls, true);
    EXPECT_EQ(controls["null_windows"], nlohmann::json::array());
    const auto& w = controls.at("watch");
    EXPECT_EQ(w.at("enabled"), true);
    EXPECT_EQ(w.at("interval_ms"), 10);
    EXPECT_EQ(w.at("reads"), 40);
    EXPECT_DOUBLE_EQ(w.at("read_ms_total").get<double>(), 4.0);
    EXPECT_DOUBLE_EQ(w.at("read_ms_mean").get<double>(), 0.1);
    EXPECT_EQ(w.at("level"), "process");
    EXPECT_FALSE(w.contains("level_why"));
}

TEST(WatchSummary, WithoutProcessListsTheLevelIsDeviceWithTheFirstReason) {
    const WatchOptions options;
    WatchSummary summary(options);
    summary.add(attempt(5, 0.5));
    summary.add(attempt(5, 0.5, "NVML_ERROR_NOT_SUPPORTED (WSL2)"));
    summary.add(attempt(5, 0.5, "another reason"));
    nlohmann::json controls = nlohmann::json::object();
    summary.write(controls, true);
    EXPECT_EQ(controls.at("watch").at("level"), "device");
    EXPECT_EQ(controls.at("watch").at("level_why"),
              "NVML gives no process list: NVML_ERROR_NOT_SUPPORTED (WSL2)");
}

TEST(WatchSummary, AWatchThatDidNotRunWritesNothingAndNoReadsMeanZero) {
    WatchOptions off;
    off.enabled = false;
    WatchSummary summary(off);
    nlohmann::json unwatched = nlohmann::json::object();
    summary.write(unwatched, false);
    EXPECT_EQ(unwatched, nlohmann::json::object());

    nlohmann::json watched = nlohmann::json::object();
    summary.write(watched, true);
    EXPECT_EQ(watched.at("watch").at("enabled"), false);
    EXPECT_EQ(watched.at("watch").at("reads"), 0);
    EXPECT_DOUBLE_EQ(watched.at("watch").at("read_ms_mean").get<double>(), 0.0);
    EXPECT_FALSE(watched.at("watch").contains("level"));  // off: no level to speak of
}

}  // namespace
}  // namespace pinbench
