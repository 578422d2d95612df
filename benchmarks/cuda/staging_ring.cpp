// StagingRing, CUDA side: the pinned slots, the stream and the slot events. The schedule and
// the copy threads are host-only (benchmarks/staging/) and tested without a GPU.
#include "staging/staging_ring.hpp"

#include <cuda_runtime_api.h>

#include <limits>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "pinbench/cuda/cuda_check.hpp"
#include "pinbench/cuda/cuda_handles.hpp"
#include "pinbench/cuda/host_buffer.hpp"
#include "staging/copy_pool.hpp"
#include "staging/slot_schedule.hpp"

namespace pinbench {

namespace {

StagingConfig validated(StagingConfig c) {
    if (c.slots == 0) throw std::invalid_argument("StagingRing: slots must be at least 1");
    if (c.slot_bytes == 0) throw std::invalid_argument("StagingRing: slot_bytes must be at least 1");
    if (c.copy_threads == 0) throw std::invalid_argument("StagingRing: copy_threads must be at least 1");
    if (c.slot_bytes > std::numeric_limits<std::size_t>::max() / c.slots) {
        throw std::invalid_argument("StagingRing: slots * slot_bytes overflows");
    }
    return c;
}

std::vector<cuda::Event> make_events(std::size_t n) {
    std::vector<cuda::Event> events;
    events.reserve(n);
    for (std::size_t i = 0; i < n; ++i) events.emplace_back(false);
    return events;
}

}  // namespace

// Constructed and destroyed with config.device current (see the constructor and ~Impl).
struct StagingRing::Impl {
    explicit Impl(StagingConfig c)
        : config(c),
          slots(allocate_host_buffer({ApiFamily::malloc_host, flag_none}, config.slots * config.slot_bytes)),
          events(make_events(config.slots)),
          pool(config.copy_threads) {}

    // Every public call synchronises before returning; the wait here is for a throw that
    // escaped between an enqueue and its synchronisation. Stream and events are destroyed
    // with their own device current; the caller's device is restored. Never throws.
    ~Impl() {
        int previous = -1;
        const bool switched = cudaGetDevice(&previous) == cudaSuccess && previous != config.device &&
                              cudaSetDevice(config.device) == cudaSuccess;
        cudaStreamSynchronize(stream.get());
        events.clear();
        { const cuda::Stream gone = std::move(stream); }
        slots.reset();
        if (switched) cudaSetDevice(previous);
        (void)cudaGetLastError();
    }
    Impl(const Impl&) = delete;
    Impl& operator=(const Impl&) = delete;

    std::byte* slot(std::size_t k) const { return slots->data() + k * config.slot_bytes; }

    // Runs one transfer; on error waits for what was enqueued, so nothing is in flight after a throw.
    void transfer(staging::SlotOps& ops, std::size_t bytes,
                  void (*run)(const staging::SlotSchedule&, staging::SlotOps&)) {
        if (bytes == 0) return;
        std::lock_guard one_at_a_time(mutex);
        cuda::DeviceGuard current(config.device);
        const staging::SlotSchedule schedule(bytes, config.slot_bytes, config.slots);
        try {
            run(schedule, ops);
        } catch (...) {
            cudaStreamSynchronize(stream.get());
            (void)cudaGetLastError();
            throw;
        }
    }

    StagingConfig config;
    std::unique_ptr<HostBuffer> slots;
    cuda::Stream stream;
    std::vector<cuda::Event> events;
    staging::CopyPool pool;
    std::mutex mutex;
};

namespace {

// What both directions share: waiting for a slot, a DMA followed by the slot's event, the
// final synchronisation.
class CudaSlotOps : public staging::SlotOps {
public:
    explicit CudaSlotOps(StagingRing::Impl& ring) : ring_(ring) {}
    void wait_slot(std::size_t slot) override {
        PINBENCH_CUDA(cudaEventSynchronize(ring_.events[slot].get()));
    }
    void finish() override { PINBENCH_CUDA(cudaStreamSynchronize(ring_.stream.get())); }

protected:
    void enqueue(void* dst, const void* src, const staging::Chunk& c, cudaMemcpyKind kind) {
        PINBENCH_CUDA(cudaMemcpyAsync(dst, src, c.bytes, kind, ring_.stream.get()));
        PINBENCH_CUDA(cudaEventRecord(ring_.events[c.slot].get(), ring_.stream.get()));
    }
    StagingRing::Impl& ring_;
};

class ToDeviceOps final : public CudaSlotOps {
public:
    ToDeviceOps(StagingRing::Impl& ring, void* dst_device, const void* src_host)
        : CudaSlotOps(ring),
          dst_(static_cast<std::byte*>(dst_device)),
          src_(static_cast<const std::byte*>(src_host)) {}
    void host_copy(const staging::Chunk& c) override {
        ring_.pool.copy(ring_.slot(c.slot), src_ + c.offset, c.bytes);
    }
    void dma(const staging::Chunk& c) override {
        enqueue(dst_ + c.offset, ring_.slot(c.slot), c, cudaMemcpyHostToDevice);
    }

private:
    std::byte* dst_;
    const std::byte* src_;
};

class ToHostOps final : public CudaSlotOps {
public:
    ToHostOps(StagingRing::Impl& ring, void* dst_host, const void* src_device)
        : CudaSlotOps(ring),
          dst_(static_cast<std::byte*>(dst_host)),
          src_(static_cast<const std::byte*>(src_device)) {}
    void host_copy(const staging::Chunk& c) override {
        ring_.pool.copy(dst_ + c.offset, ring_.slot(c.slot), c.bytes);
    }
    void dma(const staging::Chunk& c) override {
        enqueue(ring_.slot(c.slot), src_ + c.offset, c, cudaMemcpyDeviceToHost);
    }

private:
    std::byte* dst_;
    const std::byte* src_;
};

void require_pointers(const void* a, const void* b, std::size_t bytes, const char* what) {
    if (bytes != 0 && (a == nullptr || b == nullptr)) {
        throw std::invalid_argument(std::string("StagingRing::") + what + ": null pointer");
    }
}

}  // namespace

StagingRing::StagingRing(StagingConfig config) {
    config = validated(config);  // before touching CUDA
    // The stream, events and pinned slots belong to config.device; the caller's current
    // device is restored afterwards.
    cuda::DeviceGuard current(config.device);
    impl_ = std::make_unique<Impl>(config);
}
StagingRing::~StagingRing() = default;
StagingRing::StagingRing(StagingRing&&) noexcept = default;
StagingRing& StagingRing::operator=(StagingRing&&) noexcept = default;

void StagingRing::to_device(void* dst_device, const void* src_host, std::size_t bytes) {
    require_pointers(dst_device, src_host, bytes, "to_device");
    ToDeviceOps ops(*impl_, dst_device, src_host);
    impl_->transfer(ops, bytes, &staging::run_to_device);
}

void StagingRing::to_host(void* dst_host, const void* src_device, std::size_t bytes) {
    require_pointers(dst_host, src_device, bytes, "to_host");
    ToHostOps ops(*impl_, dst_host, src_device);
    impl_->transfer(ops, bytes, &staging::run_to_host);
}

const StagingConfig& StagingRing::config() const { return impl_->config; }

std::size_t StagingRing::pinned_bytes() const { return impl_->config.slots * impl_->config.slot_bytes; }

}  // namespace pinbench
