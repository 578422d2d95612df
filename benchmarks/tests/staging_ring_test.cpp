// StagingRing moves data bit-exactly both ways for edge sizes and any source memory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <string>
#include <vector>

#include "gpu_available.hpp"  // harness/tests/gpu
#include "pinbench/cuda/device.hpp"
#include "pinbench/cuda/host_buffer.hpp"
#include "staging/staging_ring.hpp"

namespace pinbench {
namespace {

constexpr std::size_t MiB = std::size_t{1} << 20;

void fill_pattern(std::byte* p, std::size_t n, std::uint32_t seed) {
    std::uint32_t x = seed | 1u;
    for (std::size_t i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        p[i] = static_cast<std::byte>(x);
    }
}

// Index of the first differing byte, or -1.
long long first_difference(const std::byte* a, const std::byte* b, std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) {
        if (a[i] != b[i]) return static_cast<long long>(i);
    }
    return -1;
}

struct Case {
    std::string name;
    std::size_t bytes;
    StagingConfig config;
};

// Test names and ctest output show the case's name, not its bytes.
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

class StagingRingData : public ::testing::TestWithParam<Case> {};

// Host -> device -> host through the ring must give back the source byte for byte; the
// device copy is then read again by a ring of another shape, so an error made the same way
// in both directions (e.g. two chunks swapped) cannot cancel out.
TEST_P(StagingRingData, RoundTripsBitExactly) {
    PINBENCH_REQUIRE_GPU();
    const Case& c = GetParam();
    DeviceContext ctx(0);
    DeviceBuffer device(std::max<std::size_t>(c.bytes, 1));
    auto src = allocate_host_buffer({ApiFamily::pageable, flag_none}, std::max<std::size_t>(c.bytes, 1));
    auto back = allocate_host_buffer({ApiFamily::pageable, flag_none}, std::max<std::size_t>(c.bytes, 1));
    fill_pattern(src->data(), c.bytes, 0x1234u);
    std::memset(back->data(), 0, back->size());

    StagingRing ring(c.config);
    ring.to_device(device.data(), src->data(), c.bytes);
    ring.to_host(back->data(), device.data(), c.bytes);
    EXPECT_EQ(first_difference(src->data(), back->data(), c.bytes), -1) << c.name;

    std::memset(back->data(), 0, back->size());
    StagingRing other(StagingConfig{3, 5 * MiB + 1, 2, 0});
    other.to_host(back->data(), device.data(), c.bytes);
    EXPECT_EQ(first_difference(src->data(), back->data(), c.bytes), -1)
        << c.name << " (read by another ring)";
}

std::vector<Case> cases() {
    const StagingConfig small{2, 1 * MiB, 2, 0};
    const StagingConfig deflt{};
    return {
        {"zero", 0, small},
        {"one_byte", 1, small},
        {"not_a_multiple_of_C", 3 * MiB + 12345, small},
        {"exactly_C", 1 * MiB, small},
        {"many_times_C", 64 * MiB + 7, small},
        {"default_config_100MiB", 100 * MiB + 3, deflt},
        {"one_slot_one_thread", 5 * MiB + 1, StagingConfig{1, 1 * MiB, 1, 0}},
        {"eight_threads_small_slots", 9 * MiB + 5, StagingConfig{8, 256 * 1024, 8, 0}},
    };
}

INSTANTIATE_TEST_SUITE_P(Sizes, StagingRingData, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Case>& info) { return info.param.name; });

TEST(StagingRing, PinnedSourceAndDestinationWork) {
    PINBENCH_REQUIRE_GPU();
    DeviceContext ctx(0);
    const std::size_t bytes = 10 * MiB + 3;
    DeviceBuffer device(bytes);
    auto src = allocate_host_buffer({ApiFamily::malloc_host, flag_none}, bytes);
    auto back = allocate_host_buffer({ApiFamily::host_register, flag_none}, bytes);
    fill_pattern(src->data(), bytes, 77u);
    std::memset(back->data(), 0, bytes);
    StagingRing ring(StagingConfig{4, 2 * MiB, 4, 0});
    ring.to_device(device.data(), src->data(), bytes);
    ring.to_host(back->data(), device.data(), bytes);
    EXPECT_EQ(first_difference(src->data(), back->data(), bytes), -1);
}

TEST(StagingRing, IsReusableAndReportsItsPinnedBytes) {
    PINBENCH_REQUIRE_GPU();
    DeviceContext ctx(0);
    StagingRing ring(StagingConfig{3, 1 * MiB, 2, 0});
    EXPECT_EQ(ring.pinned_bytes(), 3 * MiB);
    const std::size_t bytes = 4 * MiB + 1;
    DeviceBuffer device(bytes);
    std::vector<std::byte> src(bytes), back(bytes);
    for (std::uint32_t round = 1; round <= 3; ++round) {
        fill_pattern(src.data(), bytes, round);
        ring.to_device(device.data(), src.data(), bytes);
        ring.to_host(back.data(), device.data(), bytes);
        ASSERT_EQ(first_difference(src.data(), back.data(), bytes), -1) << "round " << round;
    }
}

TEST(StagingRing, MovesAndTheMovedFromRingIsDestroyedSafely) {
    PINBENCH_REQUIRE_GPU();
    DeviceContext ctx(0);
    StagingRing a(StagingConfig{2, MiB, 1, 0});
    StagingRing b(std::move(a));
    EXPECT_EQ(b.pinned_bytes(), 2 * MiB);
}

}  // namespace
}  // namespace pinbench
