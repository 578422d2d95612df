// Worker processes for the workers and shared kinds: `pinbench __worker` children that take
// one step at a time behind a barrier, so the measuring process can snapshot while every
// worker holds the same state. Protocol (one line each way): the worker says "ready" after
// its setup (a context, or only host memory for producers); "pin" -> it pins (or registers
// the shared block) and uses it, then says "pinned"; "release" -> it frees, says "released"
// and exits. A worker that fails says "error: <text>" and exits 1.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "pinbench/platform/subprocess.hpp"
#include "pinbench/vocabulary/api_variant.hpp"

namespace pinbench::kinds {

struct WorkerSpec {
    ApiVariant api;
    std::uint64_t bytes = 0;
    bool cuda = true;         // false: a producer without CUDA (holds `bytes` of pageable memory)
    std::string shared_name;  // non-empty: register this OS shared-memory block instead of pinning
};

// How long one step may take: half the repeat's timeout, so that a stuck worker is reported
// with its own words before the parent kills the whole repeat.
inline std::chrono::milliseconds worker_step_timeout(double repeat_timeout_s) {
    return std::chrono::milliseconds(static_cast<long long>(repeat_timeout_s * 1000 / 2));
}

class WorkerGroup {
public:
    // Starts `n` workers and waits until each says "ready". Throws std::runtime_error with a
    // worker's own words when one fails.
    WorkerGroup(int n, const WorkerSpec& spec, std::chrono::milliseconds step_timeout);
    ~WorkerGroup();  // kills workers still running
    WorkerGroup(const WorkerGroup&) = delete;
    WorkerGroup& operator=(const WorkerGroup&) = delete;

    void prepare_all();  // every worker allocates its GPU-use workspace, answers "prepared"
    void pin_all();  // every worker pins and answers "pinned" (allocating a workspace first if unprepared)
    void release_all();  // every worker frees, answers "released" and exits

    int size() const { return static_cast<int>(workers_.size()); }
    // The workers' process ids: the parent's device watch counts them as this repeat's own.
    std::vector<std::uint32_t> pids() const;

private:
    void step(const std::string& command, const std::string& answer);
    std::vector<std::unique_ptr<Subprocess>> workers_;
    std::chrono::milliseconds timeout_;
};

// The worker's side: `pinbench __worker --api A --bytes N [--no-cuda] [--shared NAME]`.
int worker_main(const WorkerSpec& spec);

}  // namespace pinbench::kinds
