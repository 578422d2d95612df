// Statistics over samples, checked against values computed by hand.
#include <gtest/gtest.h>

#include <climits>
#include <nlohmann/json.hpp>
#include <vector>

#include "pinbench/results/statistics.hpp"

namespace pinbench {
namespace {

constexpr long long MiB = 1LL << 20;

TEST(Summarize, EmptyIsNotASummary) { EXPECT_FALSE(summarize({}).has_value()); }

TEST(Summarize, OneSample) {
    const auto s = summarize({5.0});
    ASSERT_TRUE(s);
    EXPECT_EQ(s->n, 1u);
    EXPECT_EQ(s->median, 5.0);
    EXPECT_EQ(s->min, 5.0);
    EXPECT_EQ(s->max, 5.0);
    EXPECT_EQ(s->mad, 0.0);
}

TEST(Summarize, TwoSamplesUseTheMeanOfBoth) {
    // median (1 + 3) / 2 = 2; deviations |1-2| = 1, |3-2| = 1 -> mad 1.
    const auto s = summarize({3.0, 1.0});
    ASSERT_TRUE(s);
    EXPECT_EQ(s->n, 2u);
    EXPECT_EQ(s->median, 2.0);
    EXPECT_EQ(s->min, 1.0);
    EXPECT_EQ(s->max, 3.0);
    EXPECT_EQ(s->mad, 1.0);
}

TEST(Summarize, OddCountTakesTheMiddle) {
    // sorted 1 4 10 -> median 4; deviations 3 0 6 -> sorted 0 3 6 -> mad 3.
    const auto s = summarize({4.0, 10.0, 1.0});
    ASSERT_TRUE(s);
    EXPECT_EQ(s->n, 3u);
    EXPECT_EQ(s->median, 4.0);
    EXPECT_EQ(s->min, 1.0);
    EXPECT_EQ(s->max, 10.0);
    EXPECT_EQ(s->mad, 3.0);
}

TEST(Summarize, EvenCountAveragesTheTwoMiddle) {
    // sorted 1 2 3 10 -> median 2.5; deviations 1.5 0.5 0.5 7.5 -> sorted 0.5 0.5 1.5 7.5 -> mad 1.
    const auto s = summarize({10.0, 2.0, 1.0, 3.0});
    ASSERT_TRUE(s);
    EXPECT_EQ(s->n, 4u);
    EXPECT_EQ(s->median, 2.5);
    EXPECT_EQ(s->min, 1.0);
    EXPECT_EQ(s->max, 10.0);
    EXPECT_EQ(s->mad, 1.0);
}

TEST(Summarize, OutlierDoesNotMoveTheMad) {
    // 7 equal values and one huge one: the median and mad ignore it, max shows it.
    const auto s = summarize({8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 8.0, 1e9});
    ASSERT_TRUE(s);
    EXPECT_EQ(s->median, 8.0);
    EXPECT_EQ(s->mad, 0.0);
    EXPECT_EQ(s->max, 1e9);
}

TEST(Summarize, NegativeCosts) {
    // Memory returned during a run is a negative cost: sorted -6 -2 4 -> median -2; deviations 4 0 6 ->
    // mad 4.
    const auto s = summarize({4.0, -6.0, -2.0});
    ASSERT_TRUE(s);
    EXPECT_EQ(s->median, -2.0);
    EXPECT_EQ(s->min, -6.0);
    EXPECT_EQ(s->mad, 4.0);
}

TEST(Median, OddAndEven) {
    EXPECT_EQ(median({9.0, 1.0, 5.0}), 5.0);
    EXPECT_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
    EXPECT_EQ(median({7.0}), 7.0);
    EXPECT_EQ(median({7.0, 8.0}), 7.5);
}

TEST(ObservedGranule, LargestCommonPowerOfTwo) {
    EXPECT_EQ(observed_granule({4096, 8192, 12288}, 2 * MiB), 4096);
    EXPECT_EQ(observed_granule({2 * MiB, 4 * MiB}, 2 * MiB), 2 * MiB);
    EXPECT_EQ(observed_granule({6 * MiB, 2 * MiB}, 64 * MiB), 2 * MiB);
    EXPECT_EQ(observed_granule({3}, 2 * MiB), 1);
}

TEST(ObservedGranule, CappedAtCap) {
    EXPECT_EQ(observed_granule({64 * MiB, 128 * MiB}, 2 * MiB), 2 * MiB);
    // A cap that is not a power of two limits the granule to the power of two below it.
    EXPECT_EQ(observed_granule({2 * MiB}, 1'500'000), MiB);
}

TEST(ObservedGranule, SignAndZerosIgnored) {
    EXPECT_EQ(observed_granule({-4096, 8192}, 2 * MiB), 4096);
    EXPECT_EQ(observed_granule({0, 1024, 0}, 2 * MiB), 1024);
    EXPECT_EQ(observed_granule({LLONG_MIN}, 1LL << 30), 1LL << 30);
}

TEST(ObservedGranule, NothingNonZeroGivesCap) {
    EXPECT_EQ(observed_granule({}, 2 * MiB), 2 * MiB);
    EXPECT_EQ(observed_granule({0, 0}, 2 * MiB), 2 * MiB);
}

TEST(SummaryJson, HasEveryField) {
    const nlohmann::json j = Summary{3, 2.5, 1.0, 10.0, 0.5};
    EXPECT_EQ(j, (nlohmann::json{{"n", 3}, {"median", 2.5}, {"min", 1.0}, {"max", 10.0}, {"mad", 0.5}}));
}

TEST(LinearFit, EdgeCasesAndHandComputedLine) {
    EXPECT_FALSE(linear_fit({}, {}).has_value());
    EXPECT_FALSE(linear_fit({1}, {5}).has_value());
    EXPECT_FALSE(linear_fit({2, 2, 2}, {1, 2, 3}).has_value());  // no spread in x
    EXPECT_FALSE(linear_fit({1, 2}, {1}).has_value());
    // Two points: the line through them.
    auto two = linear_fit({0, 4}, {2, 10});
    ASSERT_TRUE(two.has_value());
    EXPECT_DOUBLE_EQ(two->slope, 2.0);
    EXPECT_DOUBLE_EQ(two->intercept, 2.0);
    // x = 1,2,3; y = 2,3,7: mean x 2, mean y 4, sxy = (-1)(-2)+0+1*3 = 5, sxx = 2 -> slope 2.5,
    // intercept 4 - 2.5*2 = -1.
    auto three = linear_fit({1, 2, 3}, {2, 3, 7});
    ASSERT_TRUE(three.has_value());
    EXPECT_DOUBLE_EQ(three->slope, 2.5);
    EXPECT_DOUBLE_EQ(three->intercept, -1.0);
}

}  // namespace
}  // namespace pinbench
