// The staging ring's slot schedule, without CUDA: chunk layout, the exact order of host
// copies, DMAs and waits, and a simulated device whose DMAs complete as late as a stream
// allows, so any schedule that touches a slot too early corrupts the data and fails here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <deque>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "staging/slot_schedule.hpp"

namespace pinbench::staging {
namespace {

TEST(SlotSchedule, ChunkCountRoundsUp) {
    EXPECT_EQ(SlotSchedule(0, 8, 4).chunk_count(), 0u);
    EXPECT_EQ(SlotSchedule(1, 8, 4).chunk_count(), 1u);
    EXPECT_EQ(SlotSchedule(8, 8, 4).chunk_count(), 1u);
    EXPECT_EQ(SlotSchedule(9, 8, 4).chunk_count(), 2u);
    EXPECT_EQ(SlotSchedule(33, 8, 4).chunk_count(), 5u);
    EXPECT_EQ(SlotSchedule(std::size_t{4} << 30, std::size_t{8} << 20, 4).chunk_count(), 512u);
}

TEST(SlotSchedule, ChunksGoRoundRobinWithAShortLastOne) {
    const SlotSchedule s(21, 8, 2);
    EXPECT_EQ(s.chunk(0), (Chunk{0, 0, 0, 8}));
    EXPECT_EQ(s.chunk(1), (Chunk{1, 1, 8, 8}));
    EXPECT_EQ(s.chunk(2), (Chunk{2, 0, 16, 5}));
    EXPECT_THROW(s.chunk(3), std::out_of_range);
}

TEST(SlotSchedule, OneSlotReusesSlotZero) {
    const SlotSchedule s(24, 8, 1);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(s.chunk(i).slot, 0u);
}

TEST(SlotSchedule, ZeroSlotBytesOrSlotsIsAnError) {
    EXPECT_THROW(SlotSchedule(10, 0, 4), std::invalid_argument);
    EXPECT_THROW(SlotSchedule(10, 8, 0), std::invalid_argument);
}

// Writes what the schedule asks for, one word per call.
class TraceOps final : public SlotOps {
public:
    std::string trace;
    void wait_slot(std::size_t slot) override { add("wait" + std::to_string(slot)); }
    void host_copy(const Chunk& c) override {
        add("copy" + std::to_string(c.index) + "@" + std::to_string(c.slot));
    }
    void dma(const Chunk& c) override { add("dma" + std::to_string(c.index) + "@" + std::to_string(c.slot)); }
    void finish() override { add("finish"); }

private:
    void add(const std::string& w) { trace += trace.empty() ? w : " " + w; }
};

TEST(RunToDevice, FillsTheNextSlotWhileTheLastDmaRuns) {
    // 5 bytes, C = 2, K = 2: chunks 0@0, 1@1, 2@0 (1 byte). Slot 0 is refilled only after waiting.
    TraceOps ops;
    run_to_device(SlotSchedule(5, 2, 2), ops);
    EXPECT_EQ(ops.trace, "copy0@0 dma0@0 copy1@1 dma1@1 wait0 copy2@0 dma2@0 finish");
}

TEST(RunToHost, RunsDmasAheadAndDrainsInOrder) {
    TraceOps ops;
    run_to_host(SlotSchedule(5, 2, 2), ops);
    EXPECT_EQ(ops.trace, "dma0@0 dma1@1 wait0 copy0@0 dma2@0 wait1 copy1@1 wait0 copy2@0 finish");
}

TEST(RunBothWays, ZeroBytesOnlyFinishes) {
    TraceOps to_device, to_host;
    run_to_device(SlotSchedule(0, 2, 2), to_device);
    run_to_host(SlotSchedule(0, 2, 2), to_host);
    EXPECT_EQ(to_device.trace, "finish");
    EXPECT_EQ(to_host.trace, "finish");
}

// A device with one in-order stream whose DMAs complete only when something waits for them
// (the latest the real stream may complete them). Host copies into a slot with a pending DMA
// are counted as violations; the data is moved at completion time, so a premature host copy
// also shows up as wrong bytes.
class SimulatedDevice final : public SlotOps {
public:
    enum class Direction { to_device, to_host };

    SimulatedDevice(Direction dir, std::size_t slots, std::size_t slot_bytes,
                    std::vector<unsigned char>& host, std::vector<unsigned char>& device)
        : dir_(dir),
          slot_bytes_(slot_bytes),
          ring_(slots * slot_bytes),
          last_dma_(slots, 0),
          host_(host),
          device_(device) {}

    std::size_t violations = 0;
    std::size_t max_in_flight = 0;

    void wait_slot(std::size_t slot) override { complete_through(last_dma_[slot]); }

    void host_copy(const Chunk& c) override {
        for (const Pending& p : pending_) {
            if (p.chunk.slot == c.slot) ++violations;  // the GPU still reads or writes this slot
        }
        unsigned char* slot = ring_.data() + c.slot * slot_bytes_;
        if (dir_ == Direction::to_device) {
            std::memcpy(slot, host_.data() + c.offset, c.bytes);
        } else {
            std::memcpy(host_.data() + c.offset, slot, c.bytes);
        }
    }

    void dma(const Chunk& c) override {
        pending_.push_back({++sequence_, c});
        last_dma_[c.slot] = sequence_;
        max_in_flight = std::max(max_in_flight, pending_.size());
    }

    void finish() override { complete_through(sequence_); }

private:
    struct Pending {
        std::size_t sequence;
        Chunk chunk;
    };

    void complete_through(std::size_t sequence) {
        while (!pending_.empty() && pending_.front().sequence <= sequence) {
            const Chunk c = pending_.front().chunk;
            unsigned char* slot = ring_.data() + c.slot * slot_bytes_;
            if (dir_ == Direction::to_device) {
                std::memcpy(device_.data() + c.offset, slot, c.bytes);
            } else {
                std::memcpy(slot, device_.data() + c.offset, c.bytes);
            }
            pending_.pop_front();
        }
    }

    Direction dir_;
    std::size_t slot_bytes_;
    std::vector<unsigned char> ring_;
    std::vector<std::size_t> last_dma_;  // sequence number of each slot's latest DMA (0: none)
    std::deque<Pending> pending_;
    std::size_t sequence_ = 0;
    std::vector<unsigned char>& host_;
    std::vector<unsigned char>& device_;
};

std::vector<unsigned char> pattern(std::size_t n, unsigned seed) {
    std::vector<unsigned char> v(n);
    unsigned x = seed | 1u;
    for (auto& b : v) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b = static_cast<unsigned char>(x);
    }
    return v;
}

class SimulatedTransfer : public ::testing::TestWithParam<std::tuple<std::size_t, std::size_t>> {};

TEST_P(SimulatedTransfer, IsBitExactBothWaysAndNeverTouchesABusySlot) {
    const auto [slots, bytes] = GetParam();
    const std::size_t slot_bytes = 16;
    {
        std::vector<unsigned char> host = pattern(bytes, 1);
        std::vector<unsigned char> device(bytes, 0);
        SimulatedDevice sim(SimulatedDevice::Direction::to_device, slots, slot_bytes, host, device);
        run_to_device(SlotSchedule(bytes, slot_bytes, slots), sim);
        EXPECT_EQ(device, host) << "to device";
        EXPECT_EQ(sim.violations, 0u);
        EXPECT_LE(sim.max_in_flight, slots);
    }
    {
        std::vector<unsigned char> device = pattern(bytes, 2);
        std::vector<unsigned char> host(bytes, 0);
        SimulatedDevice sim(SimulatedDevice::Direction::to_host, slots, slot_bytes, host, device);
        run_to_host(SlotSchedule(bytes, slot_bytes, slots), sim);
        EXPECT_EQ(host, device) << "to host";
        EXPECT_EQ(sim.violations, 0u);
        EXPECT_LE(sim.max_in_flight, slots);
    }
}

// Sizes: 0, 1, one short of C, exactly C, C + 1, not a multiple of C, many times C.
INSTANTIATE_TEST_SUITE_P(
    EdgeSizes, SimulatedTransfer,
    ::testing::Combine(::testing::Values(std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{4},
                                         std::size_t{8}),
                       ::testing::Values(std::size_t{0}, std::size_t{1}, std::size_t{15}, std::size_t{16},
                                         std::size_t{17}, std::size_t{16 * 7 + 3}, std::size_t{16 * 50})));

TEST(SimulatedDevice, CatchesAScheduleThatRefillsABusySlot) {
    // The checker itself must be able to fail: skipping the wait corrupts data.
    class NoWait final : public SlotOps {
    public:
        explicit NoWait(SlotOps& inner) : inner_(inner) {}
        void wait_slot(std::size_t) override {}
        void host_copy(const Chunk& c) override { inner_.host_copy(c); }
        void dma(const Chunk& c) override { inner_.dma(c); }
        void finish() override { inner_.finish(); }

    private:
        SlotOps& inner_;
    };
    std::vector<unsigned char> host = pattern(100, 3);
    std::vector<unsigned char> device(100, 0);
    SimulatedDevice sim(SimulatedDevice::Direction::to_device, 2, 16, host, device);
    NoWait broken(sim);
    run_to_device(SlotSchedule(100, 16, 2), broken);
    EXPECT_GT(sim.violations, 0u);
    EXPECT_NE(device, host);
}

}  // namespace
}  // namespace pinbench::staging
