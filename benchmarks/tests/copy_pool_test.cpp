// The staging ring's copy-thread pool and range split, without CUDA.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

#include "staging/copy_pool.hpp"

namespace pinbench::staging {
namespace {

TEST(SplitRange, HandComputedPieces) {
    // ceil(10 / 3) = 4 -> 4, 4, 2.
    EXPECT_EQ(split_range(10, 3, 0, 1), (Range{0, 4}));
    EXPECT_EQ(split_range(10, 3, 1, 1), (Range{4, 4}));
    EXPECT_EQ(split_range(10, 3, 2, 1), (Range{8, 2}));
    // ceil(1000 / 4) = 250, rounded up to 64 -> 256, 256, 256, 232.
    EXPECT_EQ(split_range(1000, 4, 0, 64), (Range{0, 256}));
    EXPECT_EQ(split_range(1000, 4, 2, 64), (Range{512, 256}));
    EXPECT_EQ(split_range(1000, 4, 3, 64), (Range{768, 232}));
    // 100 bytes over 4 parts of whole cache lines: 64, 36, then nothing.
    EXPECT_EQ(split_range(100, 4, 0, 64), (Range{0, 64}));
    EXPECT_EQ(split_range(100, 4, 1, 64), (Range{64, 36}));
    EXPECT_EQ(split_range(100, 4, 2, 64), (Range{100, 0}));
    EXPECT_EQ(split_range(100, 4, 3, 64), (Range{100, 0}));
}

TEST(SplitRange, ZeroBytesGivesEmptyPieces) {
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(split_range(0, 3, i), (Range{0, 0}));
}

TEST(SplitRange, PiecesAreContiguousAndCoverEverything) {
    for (std::size_t bytes : {0u, 1u, 63u, 64u, 65u, 127u, 4096u, 1000003u}) {
        for (std::size_t parts : {1u, 2u, 3u, 4u, 7u, 8u, 64u}) {
            for (std::size_t align : {1u, 64u, 4096u}) {
                std::size_t expected_offset = 0;
                for (std::size_t i = 0; i < parts; ++i) {
                    const Range r = split_range(bytes, parts, i, align);
                    ASSERT_EQ(r.offset, expected_offset) << bytes << " " << parts << " " << align << " " << i;
                    if (r.offset + r.bytes < bytes) {
                        EXPECT_EQ(r.bytes % align, 0u) << "only the last piece may be ragged";
                    }
                    expected_offset += r.bytes;
                }
                EXPECT_EQ(expected_offset, bytes) << bytes << " " << parts << " " << align;
            }
        }
    }
}

TEST(SplitRange, IndexPastThePartsIsAnError) {
    EXPECT_THROW(split_range(10, 2, 2), std::invalid_argument);
    EXPECT_THROW(split_range(10, 0, 0), std::invalid_argument);
}

TEST(CopyParts, SmallCopiesStayOnOneThread) {
    const std::size_t k256 = std::size_t{256} << 10;
    EXPECT_EQ(copy_parts(0, 4, k256), 1u);
    EXPECT_EQ(copy_parts(100, 8, k256), 1u);
    EXPECT_EQ(copy_parts(2 * k256, 4, k256), 2u);
    EXPECT_EQ(copy_parts(4 * k256, 4, k256), 4u);
    EXPECT_EQ(copy_parts(std::size_t{1} << 30, 8, k256), 8u);
    EXPECT_EQ(copy_parts(std::size_t{1} << 30, 0, k256), 0u);
    EXPECT_EQ(copy_parts(5, 3, 0), 3u);
}

TEST(CopyPool, ZeroThreadsIsAnError) { EXPECT_THROW(CopyPool(0), std::invalid_argument); }

TEST(CopyPool, CountsTheCallerAsAThread) {
    EXPECT_EQ(CopyPool(1).threads(), 1u);
    EXPECT_EQ(CopyPool(4).threads(), 4u);
}

TEST(CopyPool, RunsEveryTaskExactlyOnce) {
    for (std::size_t threads : {1u, 2u, 3u, 8u}) {
        CopyPool pool(threads);
        for (std::size_t tasks : {0u, 1u, 2u, 7u, 8u, 9u, 100u}) {
            std::vector<std::atomic<int>> runs(tasks);
            pool.run(tasks, [&](std::size_t i) { runs.at(i).fetch_add(1); });
            for (std::size_t i = 0; i < tasks; ++i) {
                EXPECT_EQ(runs[i].load(), 1) << "threads " << threads << " tasks " << tasks << " index " << i;
            }
        }
    }
}

TEST(CopyPool, TasksRunOnSeveralThreadsAtOnce) {
    // Every task waits until all four have started: this only finishes when four threads
    // (the caller and three workers) run tasks concurrently.
    CopyPool pool(4);
    std::mutex m;
    std::condition_variable all_started;
    std::size_t started = 0;
    std::set<std::thread::id> ids;
    pool.run(4, [&](std::size_t) {
        std::unique_lock lock(m);
        ids.insert(std::this_thread::get_id());
        if (++started == 4) all_started.notify_all();
        all_started.wait_for(lock, std::chrono::seconds(10), [&] { return started == 4; });
    });
    EXPECT_EQ(started, 4u);
    EXPECT_EQ(ids.size(), 4u);
}

TEST(CopyPool, IsReusableManyTimes) {
    CopyPool pool(3);
    for (int round = 0; round < 2000; ++round) {
        std::atomic<std::size_t> sum{0};
        pool.run(5, [&](std::size_t i) { sum += i + 1; });
        ASSERT_EQ(sum.load(), 15u) << "round " << round;
    }
}

TEST(CopyPool, RethrowsATaskErrorAfterRunningTheRest) {
    CopyPool pool(4);
    std::vector<std::atomic<int>> runs(16);
    EXPECT_THROW(pool.run(16,
                          [&](std::size_t i) {
                              runs[i].fetch_add(1);
                              if (i == 5) throw std::runtime_error("task 5");
                          }),
                 std::runtime_error);
    for (std::size_t i = 0; i < runs.size(); ++i) EXPECT_EQ(runs[i].load(), 1) << i;
    // The error does not stick to the next job.
    std::atomic<int> after{0};
    EXPECT_NO_THROW(pool.run(4, [&](std::size_t) { ++after; }));
    EXPECT_EQ(after.load(), 4);
}

TEST(CopyPool, ShutsDownCleanlyIdleOrAfterWork) {
    for (int i = 0; i < 200; ++i) {
        CopyPool idle(8);  // destroyed before its workers may even have started waiting
    }
    for (int i = 0; i < 50; ++i) {
        CopyPool used(4);
        std::atomic<int> n{0};
        used.run(8, [&](std::size_t) { ++n; });
        EXPECT_EQ(n.load(), 8);
    }
}

TEST(CopyPool, ConcurrentCallersAreSerialised) {
    CopyPool pool(3);
    std::atomic<std::size_t> total{0};
    std::vector<std::thread> callers;
    for (int c = 0; c < 4; ++c) {
        callers.emplace_back([&] {
            for (int r = 0; r < 200; ++r) pool.run(6, [&](std::size_t) { ++total; });
        });
    }
    for (auto& t : callers) t.join();
    EXPECT_EQ(total.load(), 4u * 200u * 6u);
}

TEST(CopyPool, CopiesExactlyTheRangeForEdgeSizes) {
    const std::size_t big = (std::size_t{3} << 20) + 3;  // several threads, ragged tail
    std::vector<unsigned char> src(big);
    std::iota(src.begin(), src.end(), static_cast<unsigned char>(7));
    for (std::size_t threads : {1u, 2u, 4u, 8u}) {
        CopyPool pool(threads);
        for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{63}, std::size_t{64},
                                  std::size_t{65}, std::size_t{1} << 20, big}) {
            std::vector<unsigned char> dst(bytes + 2, 0xAB);  // one guard byte each side
            pool.copy(dst.data() + 1, src.data(), bytes);
            EXPECT_EQ(dst.front(), 0xAB);
            EXPECT_EQ(dst.back(), 0xAB);
            EXPECT_TRUE(
                std::equal(src.begin(), src.begin() + static_cast<std::ptrdiff_t>(bytes), dst.begin() + 1))
                << "threads " << threads << " bytes " << bytes;
        }
    }
}

}  // namespace
}  // namespace pinbench::staging
