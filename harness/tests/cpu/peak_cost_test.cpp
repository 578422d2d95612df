// The device cost at a traced program's pinned peak (trace/device_samples.hpp, cost_at_peak) on
// hand-made NVML samples: the baseline once the program's context exists, the median of device
// minus own growth while the peak is held, the neighbours named and never folded in, and why
// there is no figure when there is none.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "trace/device_samples.hpp"

namespace pinbench::trace {
namespace {

constexpr std::uint64_t MiB = std::uint64_t{1} << 20;
constexpr std::uint32_t traced = 100, neighbour = 7;

// Held 2 GiB from t = 1000 to t = 5000.
PinnedTimeline peak_from_1000_to_5000() {
    PinnedTimeline t;
    t.points = {{1000, 2048 * MiB, {}}};
    t.peak_held = 2048 * MiB;
    t.peak_t_ns = 1000;
    t.peak_end_ns = 5000;
    return t;
}

DeviceSample sample(std::int64_t t, std::uint64_t used, std::map<std::uint32_t, std::uint64_t> processes,
                    bool consistent = true) {
    DeviceSample s;
    s.t_ns = t;
    s.consistent = consistent;
    s.devices = {{0, used, std::move(processes), true}};
    return s;
}

TEST(PeakCost, TheMedianOfDeviceMinusOwnGrowthWhileThePeakIsHeld) {
    const std::vector<DeviceSample> samples{
        sample(100, 1000 * MiB, {{neighbour, 300 * MiB}}),  // before the program's context
        sample(500, 1500 * MiB, {{traced, 500 * MiB}, {neighbour, 300 * MiB}}),
        sample(900, 9999 * MiB, {{traced, 500 * MiB}, {neighbour, 300 * MiB}}, false),  // not used
        sample(2000, 1506 * MiB, {{traced, 502 * MiB}, {neighbour, 300 * MiB}}),
        sample(3000, 1508 * MiB, {{traced, 502 * MiB}, {neighbour, 300 * MiB}}),
        sample(4000, 1506 * MiB, {{traced, 502 * MiB}, {neighbour, 300 * MiB}}),
        sample(6000, 1400 * MiB, {{traced, 400 * MiB}, {neighbour, 300 * MiB}}),  // after the peak
    };
    const PeakCost p = cost_at_peak(peak_from_1000_to_5000(), {}, samples, {traced}, 9000);
    EXPECT_EQ(p.baseline_t_ns, 500);
    EXPECT_TRUE(p.baseline_before_first_pin);
    EXPECT_FALSE(p.baseline_before_context);
    ASSERT_EQ(p.devices.size(), 1u);
    const DeviceCostAtPeak& d = p.devices[0];
    EXPECT_EQ(d.nvml_index, 0u);
    ASSERT_TRUE(d.cost.has_value()) << d.why;
    EXPECT_EQ(*d.cost, static_cast<std::int64_t>(4 * MiB));  // 4, 6, 4 MiB
    EXPECT_EQ(d.device_delta, static_cast<std::int64_t>(6 * MiB));
    EXPECT_EQ(d.own_delta, static_cast<std::int64_t>(2 * MiB));
    EXPECT_EQ(d.samples, 3);
    EXPECT_TRUE(d.disturbances.empty());
}

TEST(PeakCost, AnEvenNumberOfSamplesTakesTheMeanOfTheMiddleTwo) {
    const std::vector<DeviceSample> samples{
        sample(500, 1500 * MiB, {{traced, 500 * MiB}}),
        sample(2000, 1504 * MiB, {{traced, 500 * MiB}}),
        sample(3000, 1510 * MiB, {{traced, 500 * MiB}}),
    };
    const PeakCost p = cost_at_peak(peak_from_1000_to_5000(), {}, samples, {traced}, 9000);
    ASSERT_TRUE(p.devices.at(0).cost.has_value());
    EXPECT_EQ(*p.devices[0].cost, static_cast<std::int64_t>(7 * MiB));
}

TEST(PeakCost, NeighboursThatMoveAreNamed) {
    const std::vector<DeviceSample> samples{
        sample(500, 1500 * MiB, {{traced, 500 * MiB}, {neighbour, 300 * MiB}}),
        sample(2000, 1600 * MiB, {{traced, 500 * MiB}, {neighbour, 396 * MiB}}),
        sample(3000, 1300 * MiB, {{traced, 500 * MiB}, {8, 100 * MiB}}),
    };
    const PeakCost p = cost_at_peak(peak_from_1000_to_5000(), {}, samples, {traced}, 9000);
    const auto& d = p.devices.at(0);
    EXPECT_EQ(d.disturbances,
              (std::vector<std::string>{"pid 7 changed its device memory", "pid 7 left", "pid 8 appeared"}));
    EXPECT_TRUE(d.cost.has_value());  // reported beside the figure, which the reader must discount
}

TEST(PeakCost, WithoutTheContextBeforeTheFirstPinTheBaselineSaysSo) {
    const std::vector<DeviceSample> samples{
        sample(200, 1000 * MiB, {}),
        sample(800, 1000 * MiB, {}),
        sample(2000, 1508 * MiB, {{traced, 500 * MiB}}),
    };
    const PeakCost p = cost_at_peak(peak_from_1000_to_5000(), {}, samples, {traced}, 9000);
    EXPECT_TRUE(p.baseline_before_context);
    EXPECT_EQ(p.baseline_t_ns, 800);  // the last consistent sample before the first pin
    ASSERT_TRUE(p.devices.at(0).cost.has_value());
    EXPECT_EQ(*p.devices[0].cost, static_cast<std::int64_t>(8 * MiB));  // the context's overhead included
}

TEST(PeakCost, NoFigureWithTheReasonWhenThereIsNone) {
    const std::vector<DeviceSample> samples{sample(500, 1500 * MiB, {{traced, 500 * MiB}}),
                                            sample(6000, 1500 * MiB, {{traced, 500 * MiB}})};
    const auto none_held = cost_at_peak(PinnedTimeline{}, {}, samples, {traced}, 9000);
    EXPECT_FALSE(none_held.devices.at(0).cost.has_value());
    EXPECT_EQ(none_held.devices[0].why, "nothing was pinned");

    const auto none_during = cost_at_peak(peak_from_1000_to_5000(), {}, samples, {traced}, 9000);
    EXPECT_FALSE(none_during.devices.at(0).cost.has_value());
    EXPECT_EQ(none_during.devices[0].why,
              "no device sample fell while the peak was held (hold it longer than the sampling interval)");
    EXPECT_EQ(none_during.devices[0].samples, 0);

    auto blind = samples;
    blind[0].devices[0].processes_known = false;
    const auto no_list = cost_at_peak(peak_from_1000_to_5000(), {}, blind, {traced}, 9000);
    EXPECT_EQ(no_list.devices.at(0).why, "NVML gave no device-level or per-process figure for this device");

    EXPECT_TRUE(cost_at_peak(peak_from_1000_to_5000(), {}, {}, {traced}, 9000).devices.empty());
}

}  // namespace
}  // namespace pinbench::trace
