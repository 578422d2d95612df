// A persistent pool of host copy threads for the staging ring. Host-only (no CUDA), so the
// CPU tests cover it. Threads are created once: spawning them per chunk would cost more than
// copying a few MiB.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace pinbench::staging {

// Part `index` of `bytes` split into `parts` contiguous pieces. Every piece but the trailing
// ones is the same multiple of `align` (whole cache lines per thread, no false sharing at the
// seams); trailing pieces may be shorter or empty. The pieces cover [0, bytes) exactly.
struct Range {
    std::size_t offset = 0;
    std::size_t bytes = 0;
    friend bool operator==(const Range&, const Range&) = default;
};
Range split_range(std::size_t bytes, std::size_t parts, std::size_t index, std::size_t align = 64);

// How many threads are worth waking for a copy of `bytes`: at most `threads`, and at least
// `min_bytes_per_thread` each (waking a thread costs microseconds; a small copy is faster alone).
std::size_t copy_parts(std::size_t bytes, std::size_t threads,
                       std::size_t min_bytes_per_thread = std::size_t{256} << 10);

class CopyPool {
public:
    // `threads` threads work on each job, counting the calling thread: threads - 1 workers
    // are started here (so threads = 1 copies on the caller alone). Throws
    // std::invalid_argument for 0. Workers inherit the creating thread's CPU affinity.
    explicit CopyPool(std::size_t threads);
    ~CopyPool();  // stops and joins the workers
    CopyPool(const CopyPool&) = delete;
    CopyPool& operator=(const CopyPool&) = delete;

    std::size_t threads() const { return workers_.size() + 1; }

    // Runs task(i) for every i in [0, tasks) exactly once, on the workers and the calling
    // thread, and returns when all have finished. The first exception a task throws is
    // rethrown here (the other tasks still run). Calls from several threads are serialised.
    void run(std::size_t tasks, const std::function<void(std::size_t)>& task);

    // memcpy of `bytes` split over up to threads() threads (see copy_parts).
    void copy(void* dst, const void* src, std::size_t bytes);

private:
    void worker_loop();
    bool claimable() const { return job_ != nullptr && next_ < tasks_; }  // with mutex_ held
    void spin_while_unchanged(std::uint64_t seen) const;
    void finish_one(std::exception_ptr error);  // with mutex_ held

    std::mutex run_mutex_;  // one job at a time
    std::mutex mutex_;      // guards everything below
    std::condition_variable work_ready_;
    std::condition_variable job_done_;
    const std::function<void(std::size_t)>* job_ = nullptr;  // nullptr: no job
    std::size_t tasks_ = 0;
    std::size_t next_ = 0;  // next task index to claim
    std::size_t done_ = 0;  // tasks finished
    std::exception_ptr error_;
    bool stop_ = false;
    // Bumped (under mutex_) for every job and at shutdown, so idle workers can poll for the
    // next job for a moment before sleeping on work_ready_.
    std::atomic<std::uint64_t> generation_{0};
    std::vector<std::thread> workers_;
};

}  // namespace pinbench::staging
