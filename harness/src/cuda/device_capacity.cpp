// Largest allocatable block, read speed and a filler: the capacity questions of the CUDA core.
#include "pinbench/device_capacity.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <optional>

#include "cuda/kernels.hpp"
#include "pinbench/cuda/cuda_check.hpp"
#include "pinbench/cuda/cuda_handles.hpp"

namespace pinbench {
namespace {

constexpr unsigned char kFillByte = 0x5A;

// A block that cudaMalloc gives and cudaMemset can touch; freed on scope exit.
class TrialBlock {
public:
    explicit TrialBlock(std::uint64_t bytes) {
        if (cudaMalloc(&ptr_, bytes) != cudaSuccess) {
            (void)cudaGetLastError();  // out of memory is an answer, not a sticky error
            ptr_ = nullptr;
            return;
        }
        if (cudaMemset(ptr_, 0, bytes) != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess) {
            (void)cudaGetLastError();
            cudaFree(ptr_);
            ptr_ = nullptr;
        }
    }
    ~TrialBlock() {
        if (ptr_ != nullptr) cudaFree(ptr_);
    }
    TrialBlock(const TrialBlock&) = delete;
    TrialBlock& operator=(const TrialBlock&) = delete;
    void* get() const { return ptr_; }

private:
    void* ptr_ = nullptr;
};

// The checksum kernel's result word, allocated before a search so that reading the largest
// block (which leaves nothing free) does not need memory of its own.
class ResultWord {
public:
    ResultWord() { PINBENCH_CUDA(cudaMalloc(reinterpret_cast<void**>(&sum_), sizeof *sum_)); }
    ~ResultWord() { cudaFree(sum_); }
    ResultWord(const ResultWord&) = delete;
    ResultWord& operator=(const ResultWord&) = delete;
    unsigned long long* get() const { return sum_; }

private:
    unsigned long long* sum_ = nullptr;
};

// GB/s of the checksum kernel over [data, data + bytes): best of three, so a cold first pass
// does not count.
double read_gbps(const void* data, std::uint64_t bytes, const ResultWord& sum) {
    cuda::Event start(true), stop(true);
    float best_ms = 0;
    for (int i = 0; i < 3; ++i) {
        PINBENCH_CUDA(cudaEventRecord(start.get(), nullptr));
        PINBENCH_CUDA(cuda::launch_checksum(data, bytes, sum.get(), nullptr));
        PINBENCH_CUDA(cudaEventRecord(stop.get(), nullptr));
        PINBENCH_CUDA(cudaEventSynchronize(stop.get()));
        float ms = 0;
        PINBENCH_CUDA(cudaEventElapsedTime(&ms, start.get(), stop.get()));
        best_ms = i == 0 ? ms : std::min(best_ms, ms);
    }
    return best_ms > 0 ? static_cast<double>(bytes) / (best_ms * 1e6) : 0;
}

std::uint64_t free_now() {
    std::size_t free = 0, total = 0;
    PINBENCH_CUDA(cudaMemGetInfo(&free, &total));
    return free;
}

}  // namespace

BlockSearch largest_device_block(std::uint64_t upper, std::uint64_t resolution, bool measure_read) {
    BlockSearch out;
    std::optional<ResultWord> sum;
    if (measure_read) sum.emplace();
    // In units of resolution: lo fits, hi does not. The largest block is usually just below
    // free memory, and a candidate near free memory costs a large map and memset, so search
    // down from the top in growing steps first, then bisect the bracket found.
    const std::uint64_t top = upper / resolution;
    std::uint64_t lo = 0, hi = top + 1;
    for (std::uint64_t step = 1; step <= top; step *= 2) {
        const std::uint64_t candidate = top - step + 1;
        ++out.candidates;
        if (TrialBlock(candidate * resolution).get() != nullptr) {
            lo = candidate;
            break;
        }
        hi = candidate;
    }
    while (hi - lo > 1) {
        const std::uint64_t mid = lo + (hi - lo) / 2;
        ++out.candidates;
        if (TrialBlock(mid * resolution).get() != nullptr) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    out.largest = lo * resolution;
    if (measure_read && out.largest > 0) {
        TrialBlock block(out.largest);
        if (block.get() != nullptr) out.read_gbps = read_gbps(block.get(), out.largest, *sum);
    }
    return out;
}

double device_read_gbps(std::uint64_t bytes) {
    const ResultWord sum;
    TrialBlock block(bytes);
    if (block.get() == nullptr) cuda::check(cudaErrorMemoryAllocation, "cudaMalloc (read reference)");
    return read_gbps(block.get(), bytes, sum);
}

DeviceFiller::DeviceFiller(std::uint64_t free_target, std::uint64_t resolution) {
    // Big chunks first, halving when one does not fit, until free is within resolution.
    std::uint64_t free = free_now();
    while (free > free_target + resolution) {
        std::uint64_t chunk = (free - free_target) / resolution * resolution;
        void* p = nullptr;
        while (chunk >= resolution && cudaMalloc(&p, chunk) != cudaSuccess) {
            (void)cudaGetLastError();
            chunk = chunk / 2 / resolution * resolution;
        }
        if (chunk < resolution) break;
        chunks_.emplace_back(p, chunk);
        filled_ += chunk;
        PINBENCH_CUDA(cudaMemset(p, kFillByte, chunk));
        PINBENCH_CUDA(cudaDeviceSynchronize());
        const std::uint64_t now = free_now();
        if (now >= free) break;  // the driver did not take it from free memory: stop
        free = now;
    }
    free_after_ = free_now();
}

DeviceFiller::~DeviceFiller() {
    for (const auto& [p, n] : chunks_) cudaFree(p);
}

std::string DeviceFiller::intact() const {
    const ResultWord sum;
    std::string problem;
    for (std::size_t i = 0; i < chunks_.size() && problem.empty(); ++i) {
        const auto [p, n] = chunks_[i];
        PINBENCH_CUDA(cudaMemset(sum.get(), 0, sizeof *sum.get()));
        PINBENCH_CUDA(cuda::launch_checksum(p, n, sum.get(), nullptr));
        unsigned long long got = 0;
        PINBENCH_CUDA(cudaMemcpy(&got, sum.get(), sizeof got, cudaMemcpyDeviceToHost));
        // Every 32-bit word is 0x5A5A5A5A (chunks are multiples of the resolution, so of 4).
        const unsigned long long expected = (n / 4) * 0x5A5A5A5AULL;
        if (got != expected) problem = "filler chunk " + std::to_string(i) + " no longer holds its pattern";
    }
    return problem;
}

}  // namespace pinbench
