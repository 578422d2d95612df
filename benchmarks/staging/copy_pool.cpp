#include "staging/copy_pool.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace pinbench::staging {

Range split_range(std::size_t bytes, std::size_t parts, std::size_t index, std::size_t align) {
    if (parts == 0 || index >= parts) throw std::invalid_argument("split_range: index out of range");
    if (align == 0) align = 1;
    // Ceil(bytes / parts) rounded up to the alignment; later pieces take what is left.
    std::size_t per = bytes / parts + (bytes % parts != 0 ? 1 : 0);
    per = (per + align - 1) / align * align;
    const std::size_t offset = std::min(bytes, per * index);
    return {offset, std::min(per, bytes - offset)};
}

std::size_t copy_parts(std::size_t bytes, std::size_t threads, std::size_t min_bytes_per_thread) {
    if (threads == 0) return 0;
    if (min_bytes_per_thread == 0) return threads;
    const std::size_t worth = std::max<std::size_t>(1, bytes / min_bytes_per_thread);
    return std::min(threads, worth);
}

CopyPool::CopyPool(std::size_t threads) {
    if (threads == 0) throw std::invalid_argument("CopyPool: threads must be at least 1");
    workers_.reserve(threads - 1);
    try {
        for (std::size_t i = 1; i < threads; ++i) workers_.emplace_back([this] { worker_loop(); });
    } catch (...) {
        {
            std::lock_guard lock(mutex_);
            stop_ = true;
        }
        work_ready_.notify_all();
        for (auto& w : workers_) w.join();
        throw;
    }
}

CopyPool::~CopyPool() {
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
        ++generation_;
    }
    work_ready_.notify_all();
    for (auto& w : workers_) w.join();
}

void CopyPool::finish_one(std::exception_ptr error) {
    if (error && !error_) error_ = std::move(error);
    if (++done_ == tasks_) job_done_.notify_all();
}

void CopyPool::spin_while_unchanged(std::uint64_t seen) const {
    // During a transfer jobs come back to back, a few microseconds apart; waking a sleeping
    // thread costs about as long. Polling briefly first keeps that off every chunk, and an
    // idle pool still goes to sleep.
    constexpr auto spin = std::chrono::microseconds(50);
    const auto until = std::chrono::steady_clock::now() + spin;
    while (generation_.load(std::memory_order_acquire) == seen && std::chrono::steady_clock::now() < until) {
    }
}

void CopyPool::worker_loop() {
    std::unique_lock lock(mutex_);
    for (;;) {
        if (!stop_ && !claimable()) {
            const std::uint64_t seen = generation_.load(std::memory_order_relaxed);
            lock.unlock();
            spin_while_unchanged(seen);
            lock.lock();
            work_ready_.wait(lock, [this] { return stop_ || claimable(); });
        }
        if (stop_) return;
        // Claim under the lock: each index goes to exactly one thread, and job_ cannot be
        // reset while a claimed task runs (run() waits for done_ == tasks_ first).
        const auto* job = job_;
        const std::size_t index = next_++;
        lock.unlock();
        std::exception_ptr error;
        try {
            (*job)(index);
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        finish_one(std::move(error));
    }
}

void CopyPool::run(std::size_t tasks, const std::function<void(std::size_t)>& task) {
    if (tasks == 0) return;
    std::lock_guard serial(run_mutex_);
    std::unique_lock lock(mutex_);
    job_ = &task;
    tasks_ = tasks;
    next_ = 0;
    done_ = 0;
    error_ = nullptr;
    ++generation_;
    if (tasks > 1 && !workers_.empty()) work_ready_.notify_all();
    // The caller works too instead of sleeping until the workers are done.
    while (next_ < tasks_) {
        const std::size_t index = next_++;
        lock.unlock();
        std::exception_ptr error;
        try {
            task(index);
        } catch (...) {
            error = std::current_exception();
        }
        lock.lock();
        finish_one(std::move(error));
    }
    job_done_.wait(lock, [this] { return done_ == tasks_; });
    job_ = nullptr;
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
}

void CopyPool::copy(void* dst, const void* src, std::size_t bytes) {
    if (bytes == 0) return;
    const std::size_t parts = copy_parts(bytes, threads());
    auto* d = static_cast<std::byte*>(dst);
    const auto* s = static_cast<const std::byte*>(src);
    if (parts <= 1) {
        std::memcpy(d, s, bytes);
        return;
    }
    run(parts, [=](std::size_t i) {
        const Range r = split_range(bytes, parts, i);
        if (r.bytes != 0) std::memcpy(d + r.offset, s + r.offset, r.bytes);
    });
}

}  // namespace pinbench::staging
