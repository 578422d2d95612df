// CUDA-event timing for the benchmark programs (benchmarks/). The header has no CUDA types,
// so the programs build with a plain host compiler; only bench_timing.cpp includes CUDA.
#pragma once

#include <cstddef>
#include <memory>

namespace pinbench::bench {

enum class Direction { host_to_device, device_to_host };

// A non-blocking stream with a start and a stop event on the current device. Work enqueued
// between start() and stop() is timed by the GPU's clock, so host-side launch and
// synchronisation costs outside that window are not counted.
class TimedStream {
public:
    TimedStream();
    ~TimedStream();
    TimedStream(const TimedStream&) = delete;
    TimedStream& operator=(const TimedStream&) = delete;

    void start();
    // cudaMemcpyAsync on the stream (host memory may be pinned or pageable).
    void copy(void* dst, const void* src, std::size_t bytes, Direction direction);
    // A kernel reading every byte once through `device_pointer` (a mapped host buffer's
    // device pointer: zero-copy read over the bus).
    void read_through(const void* device_pointer, std::size_t bytes);
    // Records the stop event, waits for it and returns the seconds between the two events.
    double stop();

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace pinbench::bench
