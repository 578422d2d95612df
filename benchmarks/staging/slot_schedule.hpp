// The staging ring's schedule, host-only so the CPU tests cover it: which slot each chunk of
// a transfer uses, and the order of host copies, DMAs and waits that lets the host copy of
// one slot overlap the DMA of another without ever touching a slot the GPU still uses.
#pragma once

#include <cstddef>

namespace pinbench::staging {

// One chunk of a transfer: bytes [offset, offset + bytes) of the source and destination,
// staged through slot `slot`.
struct Chunk {
    std::size_t index = 0;
    std::size_t slot = 0;
    std::size_t offset = 0;
    std::size_t bytes = 0;
    friend bool operator==(const Chunk&, const Chunk&) = default;
};

// `total_bytes` cut into chunks of `slot_bytes` (the last one shorter), used round-robin
// over `slots` slots. Throws std::invalid_argument when slot_bytes or slots is 0.
class SlotSchedule {
public:
    SlotSchedule(std::size_t total_bytes, std::size_t slot_bytes, std::size_t slots);
    std::size_t chunk_count() const { return chunks_; }
    std::size_t slots() const { return slots_; }
    Chunk chunk(std::size_t index) const;  // throws std::out_of_range past the end

private:
    std::size_t total_;
    std::size_t slot_bytes_;
    std::size_t slots_;
    std::size_t chunks_;
};

// What the schedule drives. The CUDA implementation: wait_slot = cudaEventSynchronize on the
// slot's event, host_copy = the thread pool's memcpy, dma = cudaMemcpyAsync on one stream
// then cudaEventRecord of the slot's event, finish = cudaStreamSynchronize.
class SlotOps {
public:
    virtual ~SlotOps() = default;
    virtual void wait_slot(std::size_t slot) = 0;    // until the slot's last DMA has completed
    virtual void host_copy(const Chunk& chunk) = 0;  // source -> slot (H2D) or slot -> destination (D2H)
    virtual void dma(const Chunk& chunk) = 0;        // enqueue slot -> device (H2D) or device -> slot (D2H)
    virtual void finish() = 0;                       // until every enqueued DMA has completed
};

// Host to device: fill slot k+1 while slot k's DMA runs; a slot is refilled only after the
// DMA that last read it has completed.
void run_to_device(const SlotSchedule& schedule, SlotOps& ops);

// Device to host: DMAs run up to `slots` chunks ahead; a chunk is copied out of its slot
// after its DMA has completed, and the slot is then reused for the chunk `slots` later.
void run_to_host(const SlotSchedule& schedule, SlotOps& ops);

}  // namespace pinbench::staging
