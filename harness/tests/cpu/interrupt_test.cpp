// A stop request ends Subprocess::wait early, kills the child (its group on POSIX, its Job
// Object on Windows) and says `interrupted`: the path a cancelled run takes, on both platforms
// (under Wine too, where console events cannot be delivered: ci/README.md).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "pinbench/platform/interrupt.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

std::vector<std::string> sleeping_child() {
#ifdef _WIN32
    return {PINBENCH_TEST_CHILD, "sleep", "30000"};
#else
    return {"/bin/sh", "-c", "sleep 30"};
#endif
}

TEST(StopRequest, EndsAWaitEarlyAndKillsTheChild) {
    const StopOnSignals handlers;
    Subprocess child(sleeping_child(), {});
    std::thread stopper([] {
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        request_stop_for_test(2);
    });
    const auto t0 = std::chrono::steady_clock::now();
    const ProcessOutcome o = child.wait(std::chrono::seconds(20));
    const auto waited = std::chrono::steady_clock::now() - t0;
    stopper.join();
    request_stop_for_test(0);  // later tests must not see the stop
    EXPECT_EQ(o.kind, ProcessOutcome::Kind::interrupted);
    EXPECT_LT(waited, std::chrono::seconds(5)) << "the wait must end soon after the stop";
    EXPECT_EQ(stop_signal(), 0);
}

TEST(StopRequest, NamesAndExitCodes) {
    EXPECT_EQ(exit_code_for_signal(2), 130);
    EXPECT_EQ(exit_code_for_signal(15), 143);
    EXPECT_EQ(exit_code_for_signal(1), 129);
#ifdef _WIN32
    EXPECT_EQ(stop_signal_name(2), "CTRL_C");
    EXPECT_EQ(stop_signal_name(15), "CTRL_BREAK");
#else
    EXPECT_EQ(stop_signal_name(2), "SIGINT");
    EXPECT_EQ(stop_signal_name(15), "SIGTERM");
#endif
}

}  // namespace
}  // namespace pinbench
