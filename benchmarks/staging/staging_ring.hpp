// StagingRing: moves data between pageable host memory and the GPU at (close to) pinned
// speed while pinning only a fixed, small amount of host memory.
//
// Pinned memory is fast to transfer but costs GPU address space (on WDDM, video memory); a
// pageable cudaMemcpy pins nothing but is several times slower. The ring pins K slots of C
// bytes once (K*C bytes in all) and streams any number of bytes through them: while the GPU
// copies slot k, a pool of T host threads fills slot k+1 (and the reverse for device to host).
//
// Usage:
//     pinbench::StagingRing ring(pinbench::StagingConfig{});  // defaults below
//     ring.to_device(device_ptr, host_vector.data(), bytes);   // returns when the data is there
//     ring.to_host(host_vector.data(), device_ptr, bytes);
//
// Both calls are synchronous: when they return, the destination holds the data and the ring
// holds no reference to either buffer. The source may be any host memory, pinned or not.
// One ring serves one transfer at a time (calls from several threads are serialised).
#pragma once

#include <cstddef>
#include <memory>

namespace pinbench {

struct StagingConfig {
    // Defaults from the staging curve measured on one H200 (PCIe Gen5 x16, Linux 580.159.04,
    // 16-core VM; tables in benchmarks/README.md). With 8 copy threads no K, C with K*C <= 64 MiB
    // reached 0.90x of full-pinned H2D at both 1 and 4 GiB (results/h200-bench/staging_bench.json);
    // with 16 threads, K 4 x C 8 MiB (32 MiB pinned) reached 0.95x at 1 GiB and 0.97x at 4 GiB,
    // the smallest pinned footprint that met it (results/h200-nightly/staging_bench_t16.json).
    // The host copy, not the link, is the limit: T matters most. Re-measure per machine.
    std::size_t slots = 4;                          // K: pinned slots; 2 or more to overlap
    std::size_t slot_bytes = std::size_t{8} << 20;  // C: bytes per slot and per DMA
    std::size_t copy_threads = 16;                  // T: host copy threads, counting the caller
    int device = 0;                                 // CUDA device the transfers go to / come from
};

class StagingRing {
public:
    // Pins K*C bytes (cudaMallocHost), creates a stream and one event per slot on
    // config.device, and starts T - 1 copy threads. Throws std::invalid_argument for a zero
    // field or when K*C overflows, pinbench::CudaError when CUDA fails (e.g. out of memory).
    explicit StagingRing(StagingConfig config);
    ~StagingRing();  // waits for nothing in flight (every call already completed), frees all
    StagingRing(StagingRing&&) noexcept;  // a moved-from ring may only be destroyed or assigned to
    StagingRing& operator=(StagingRing&&) noexcept;
    StagingRing(const StagingRing&) = delete;
    StagingRing& operator=(const StagingRing&) = delete;

    // Copies `bytes` from host memory `src_host` to device memory `dst_device` (on
    // config.device). bytes = 0 does nothing. Throws CudaError; after a throw nothing is in flight.
    void to_device(void* dst_device, const void* src_host, std::size_t bytes);

    // Copies `bytes` from device memory `src_device` to host memory `dst_host`.
    void to_host(void* dst_host, const void* src_device, std::size_t bytes);

    const StagingConfig& config() const;
    std::size_t pinned_bytes() const;  // K * C

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace pinbench
