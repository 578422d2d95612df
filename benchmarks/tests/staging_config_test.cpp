// StagingRing validates its configuration before any CUDA call, so a bad configuration is
// reported the same way with or without a GPU.
#include <gtest/gtest.h>

#include <stdexcept>

#include "staging/staging_ring.hpp"

namespace pinbench {
namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;

// The defaults are the ones chosen from results/h200-nightly/staging_bench_t16.json (see the
// comment in staging_ring.hpp); a change must come with new measurements.
TEST(StagingConfig, DefaultsAreTheMeasuredOnes) {
    const StagingConfig c;
    EXPECT_EQ(c.slots, 4u);
    EXPECT_EQ(c.slot_bytes, 8 * MiB);
    EXPECT_EQ(c.copy_threads, 16u);
    EXPECT_LE(c.slots * c.slot_bytes, 64 * MiB);  // the ring's pinned budget (benchmarks/README.md)
    EXPECT_EQ(c.device, 0);
}

TEST(StagingConfig, ZeroFieldsAndOverflowAreRejected) {
    EXPECT_THROW(StagingRing(StagingConfig{0, MiB, 1, 0}), std::invalid_argument);
    EXPECT_THROW(StagingRing(StagingConfig{2, 0, 1, 0}), std::invalid_argument);
    EXPECT_THROW(StagingRing(StagingConfig{2, MiB, 0, 0}), std::invalid_argument);
    EXPECT_THROW(StagingRing(StagingConfig{2, ~std::size_t{0}, 1, 0}), std::invalid_argument);
}

}  // namespace
}  // namespace pinbench
