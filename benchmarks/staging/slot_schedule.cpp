#include "staging/slot_schedule.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pinbench::staging {

SlotSchedule::SlotSchedule(std::size_t total_bytes, std::size_t slot_bytes, std::size_t slots)
    : total_(total_bytes), slot_bytes_(slot_bytes), slots_(slots) {
    if (slot_bytes == 0) throw std::invalid_argument("staging: slot_bytes must be at least 1");
    if (slots == 0) throw std::invalid_argument("staging: slots must be at least 1");
    chunks_ = total_bytes / slot_bytes + (total_bytes % slot_bytes != 0 ? 1 : 0);
}

Chunk SlotSchedule::chunk(std::size_t index) const {
    if (index >= chunks_) {
        throw std::out_of_range("staging: chunk " + std::to_string(index) + " of " + std::to_string(chunks_));
    }
    const std::size_t offset = index * slot_bytes_;
    return {index, index % slots_, offset, std::min(slot_bytes_, total_ - offset)};
}

void run_to_device(const SlotSchedule& schedule, SlotOps& ops) {
    const std::size_t n = schedule.chunk_count();
    for (std::size_t i = 0; i < n; ++i) {
        const Chunk c = schedule.chunk(i);
        // The slot's previous chunk (i - slots) must have left for the device.
        if (i >= schedule.slots()) ops.wait_slot(c.slot);
        ops.host_copy(c);
        ops.dma(c);  // runs while the next iteration fills the next slot
    }
    ops.finish();
}

void run_to_host(const SlotSchedule& schedule, SlotOps& ops) {
    const std::size_t n = schedule.chunk_count();
    const std::size_t k = schedule.slots();
    for (std::size_t i = 0; i < std::min(n, k); ++i) ops.dma(schedule.chunk(i));
    for (std::size_t i = 0; i < n; ++i) {
        const Chunk c = schedule.chunk(i);
        ops.wait_slot(c.slot);  // chunk i has landed in its slot
        ops.host_copy(c);       // while the DMAs of the next chunks run
        if (i + k < n) ops.dma(schedule.chunk(i + k));
    }
    ops.finish();
}

}  // namespace pinbench::staging
