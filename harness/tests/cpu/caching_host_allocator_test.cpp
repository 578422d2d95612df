// CachingHostAllocator with a fake factory: power-of-two rounding, reuse after release, one
// buffer per concurrent block, pinned_bytes and empty_cache, all against hand-computed values.
#include <gtest/gtest.h>

#include <cstddef>
#include <memory>
#include <stdexcept>
#include <vector>

#include "kinds/caching_host_allocator.hpp"

namespace pinbench {
namespace {

constexpr std::size_t kKiB = 1024;
constexpr std::size_t kMiB = 1024 * kKiB;

// Plain memory standing in for a pinned buffer; counts how many are alive.
class FakeHostBuffer : public HostBuffer {
public:
    FakeHostBuffer(std::size_t bytes, int* alive) : memory_(bytes), alive_(alive) { ++*alive_; }
    ~FakeHostBuffer() override { --*alive_; }
    ApiVariant api() const override { return ApiVariant{}; }
    std::byte* data() const override { return const_cast<std::byte*>(memory_.data()); }
    std::size_t size() const override { return memory_.size(); }
    void* device_pointer() const override { return nullptr; }

private:
    std::vector<std::byte> memory_;
    int* alive_;
};

// The factory records each size it is asked for.
struct FakeDriver {
    std::vector<std::size_t> requests;
    int alive = 0;

    CachingHostAllocator::Factory factory() {
        return [this](std::size_t bytes) {
            requests.push_back(bytes);
            return std::make_unique<FakeHostBuffer>(bytes, &alive);
        };
    }
};

TEST(CachingHostAllocator, RoundsUpToTheNextPowerOfTwo) {
    EXPECT_EQ(CachingHostAllocator::round_up(1), 1u);
    EXPECT_EQ(CachingHostAllocator::round_up(3), 4u);
    EXPECT_EQ(CachingHostAllocator::round_up(4096), 4096u);
    EXPECT_EQ(CachingHostAllocator::round_up(4097), 8192u);
    EXPECT_EQ(CachingHostAllocator::round_up(3 * kMiB), 4 * kMiB);
    EXPECT_EQ(CachingHostAllocator::round_up(4 * kMiB), 4 * kMiB);
    EXPECT_EQ(CachingHostAllocator::round_up(4 * kMiB + 1), 8 * kMiB);
    constexpr std::size_t kTop = std::size_t{1} << 63;
    EXPECT_EQ(CachingHostAllocator::round_up(kTop), kTop);
    EXPECT_THROW(CachingHostAllocator::round_up(kTop + 1), std::length_error);
}

TEST(CachingHostAllocator, ThreeMiBGetsAFourMiBBlock) {
    FakeDriver driver;
    CachingHostAllocator allocator(driver.factory());
    CachingHostAllocator::Block block = allocator.acquire(3 * kMiB);
    ASSERT_TRUE(block);
    EXPECT_EQ(block.size(), 4 * kMiB);
    ASSERT_NE(block.data(), nullptr);
    block.data()[4 * kMiB - 1] = std::byte{1};  // the whole class is usable
    EXPECT_EQ(driver.requests, std::vector<std::size_t>{4 * kMiB});
    EXPECT_EQ(allocator.pinned_bytes(), 4 * kMiB);
    EXPECT_EQ(allocator.allocations(), 1u);
}

TEST(CachingHostAllocator, ReleasedBlockIsReusedWithoutCallingTheFactory) {
    FakeDriver driver;
    CachingHostAllocator allocator(driver.factory());
    CachingHostAllocator::Block first = allocator.acquire(3 * kMiB);
    std::byte* const address = first.data();
    allocator.release(std::move(first));
    EXPECT_EQ(allocator.cached_blocks(), 1u);
    EXPECT_EQ(allocator.pinned_bytes(), 4 * kMiB);  // cached, not returned

    // Any request of the same class (2 MiB + 1 .. 4 MiB) takes it back.
    CachingHostAllocator::Block again = allocator.acquire(2 * kMiB + 1);
    EXPECT_EQ(again.data(), address);
    EXPECT_EQ(again.size(), 4 * kMiB);
    EXPECT_EQ(driver.requests.size(), 1u);
    EXPECT_EQ(allocator.allocations(), 1u);
    EXPECT_EQ(allocator.cached_blocks(), 0u);
    EXPECT_EQ(allocator.pinned_bytes(), 4 * kMiB);
}

TEST(CachingHostAllocator, DestroyingABlockReleasesIt) {
    FakeDriver driver;
    CachingHostAllocator allocator(driver.factory());
    { CachingHostAllocator::Block block = allocator.acquire(kMiB); }
    EXPECT_EQ(allocator.cached_blocks(), 1u);
    CachingHostAllocator::Block block = allocator.acquire(kMiB);
    EXPECT_EQ(allocator.allocations(), 1u);
}

TEST(CachingHostAllocator, TwoConcurrentBlocksAreTwoBuffers) {
    FakeDriver driver;
    CachingHostAllocator allocator(driver.factory());
    CachingHostAllocator::Block a = allocator.acquire(3 * kMiB);
    CachingHostAllocator::Block b = allocator.acquire(3 * kMiB);
    EXPECT_NE(a.data(), b.data());
    EXPECT_EQ(driver.requests, (std::vector<std::size_t>{4 * kMiB, 4 * kMiB}));
    EXPECT_EQ(allocator.allocations(), 2u);
    EXPECT_EQ(allocator.pinned_bytes(), 8 * kMiB);  // 2 x 4 MiB for 2 x 3 MiB asked
}

TEST(CachingHostAllocator, ClassesAreNotShared) {
    FakeDriver driver;
    CachingHostAllocator allocator(driver.factory());
    allocator.release(allocator.acquire(8 * kMiB));
    // A cached 8 MiB block does not serve a 4 MiB class request (no splitting, as in PyTorch).
    CachingHostAllocator::Block small = allocator.acquire(3 * kMiB);
    EXPECT_EQ(driver.requests, (std::vector<std::size_t>{8 * kMiB, 4 * kMiB}));
    EXPECT_EQ(allocator.pinned_bytes(), 12 * kMiB);
    EXPECT_EQ(allocator.cached_blocks(), 1u);
}

TEST(CachingHostAllocator, EmptyCacheFreesCachedBlocksOnlyAndTheNextAcquireAllocates) {
    FakeDriver driver;
    CachingHostAllocator allocator(driver.factory());
    CachingHostAllocator::Block held = allocator.acquire(3 * kMiB);  // 4 MiB, in use
    allocator.release(allocator.acquire(kMiB));                      // 1 MiB, cached
    allocator.release(allocator.acquire(5 * kMiB));                  // 8 MiB, cached
    EXPECT_EQ(allocator.pinned_bytes(), 13 * kMiB);
    EXPECT_EQ(driver.alive, 3);

    allocator.empty_cache();
    EXPECT_EQ(allocator.pinned_bytes(), 4 * kMiB);  // only the held block
    EXPECT_EQ(allocator.cached_blocks(), 0u);
    EXPECT_EQ(driver.alive, 1);
    EXPECT_EQ(allocator.allocations(), 3u);  // cumulative

    CachingHostAllocator::Block again = allocator.acquire(kMiB);
    EXPECT_EQ(allocator.allocations(), 4u);
    EXPECT_EQ(allocator.pinned_bytes(), 5 * kMiB);

    // The held block goes back to the cache after empty_cache too.
    held.reset();
    EXPECT_FALSE(held);
    EXPECT_EQ(allocator.cached_blocks(), 1u);
    EXPECT_EQ(allocator.pinned_bytes(), 5 * kMiB);
}

TEST(CachingHostAllocator, ZeroBytesGivesAnEmptyBlockWithoutTheFactory) {
    FakeDriver driver;
    CachingHostAllocator allocator(driver.factory());
    CachingHostAllocator::Block block = allocator.acquire(0);
    EXPECT_FALSE(block);
    EXPECT_EQ(block.data(), nullptr);
    EXPECT_EQ(block.size(), 0u);
    EXPECT_TRUE(driver.requests.empty());
    allocator.release(std::move(block));  // harmless
    EXPECT_EQ(allocator.cached_blocks(), 0u);
}

TEST(CachingHostAllocator, FactoryFailureLeavesTheStateUnchanged) {
    int calls = 0;
    CachingHostAllocator allocator([&calls](std::size_t) -> std::unique_ptr<HostBuffer> {
        ++calls;
        throw std::bad_alloc();
    });
    EXPECT_THROW(allocator.acquire(kMiB), std::bad_alloc);
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(allocator.allocations(), 0u);
    EXPECT_EQ(allocator.pinned_bytes(), 0u);
}

TEST(CachingHostAllocator, BlockOutlivingTheAllocatorFreesItsBuffer) {
    FakeDriver driver;
    CachingHostAllocator::Block survivor;
    {
        CachingHostAllocator allocator(driver.factory());
        survivor = allocator.acquire(kMiB);
        allocator.release(allocator.acquire(2 * kMiB));
        EXPECT_EQ(driver.alive, 2);
    }
    EXPECT_EQ(driver.alive, 1);  // the cached one went with the allocator
    survivor.reset();
    EXPECT_EQ(driver.alive, 0);
}

}  // namespace
}  // namespace pinbench
