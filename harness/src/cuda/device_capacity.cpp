// Largest allocatable block, read speed and a filler: the capacity questions of the CUDA core.
#include "pinbench/cuda/device_capacity.hpp"

#include <algorithm>
#include <optional>

#include "cuda/driver_api.hpp"
#include "cuda/driver_handles.hpp"
#include "cuda/kernels.hpp"

namespace pinbench {
namespace {

constexpr unsigned char kFillByte = 0x5A;

void* as_pointer(CUdeviceptr p) { return reinterpret_cast<void*>(p); }  // NOLINT(performance-no-int-to-ptr)

// A block that cuMemAlloc (cudaMalloc) gives and cuMemsetD8 can touch; freed on scope exit.
class TrialBlock {
public:
    explicit TrialBlock(std::uint64_t bytes) {
        const cuda::DriverApi& d = cuda::driver();
        (void)cuda::current_device();
        // Out of memory is an answer, not an error (and the driver API has no sticky error).
        if (d.status(d.mem_alloc, &ptr_, static_cast<std::size_t>(bytes)) != CUDA_SUCCESS) {
            ptr_ = 0;
            return;
        }
        if (d.status(d.memset_d8, ptr_, static_cast<unsigned char>(0), static_cast<std::size_t>(bytes)) !=
                CUDA_SUCCESS ||
            d.status(d.ctx_synchronize) != CUDA_SUCCESS) {
            (void)d.status(d.mem_free, ptr_);
            ptr_ = 0;
        }
    }
    ~TrialBlock() {
        if (ptr_ != 0) cuda::call_quietly(&cuda::DriverApi::mem_free, ptr_);
    }
    TrialBlock(const TrialBlock&) = delete;
    TrialBlock& operator=(const TrialBlock&) = delete;
    void* get() const { return as_pointer(ptr_); }

private:
    CUdeviceptr ptr_ = 0;
};

// The checksum kernel's result word, allocated before a search so that reading the largest
// block (which leaves nothing free) does not need memory of its own.
class ResultWord {
public:
    ResultWord() {
        const cuda::DriverApi& d = cuda::driver();
        (void)cuda::current_device();
        d.call(d.mem_alloc, &sum_, sizeof(unsigned long long));
    }
    ~ResultWord() { cuda::call_quietly(&cuda::DriverApi::mem_free, sum_); }
    ResultWord(const ResultWord&) = delete;
    ResultWord& operator=(const ResultWord&) = delete;
    CUdeviceptr address() const { return sum_; }
    void* get() const { return as_pointer(sum_); }

private:
    CUdeviceptr sum_ = 0;
};

// GB/s of the checksum kernel over [data, data + bytes): best of three, so a cold first pass
// does not count.
double read_gbps(const void* data, std::uint64_t bytes, const ResultWord& sum) {
    const cuda::DriverApi& d = cuda::driver();
    cuda::Event start(true), stop(true);
    float best_ms = 0;
    for (int i = 0; i < 3; ++i) {
        d.call(d.event_record, start.get(), CUstream{nullptr});
        cuda::launch_checksum(data, bytes, sum.get(), nullptr);
        d.call(d.event_record, stop.get(), CUstream{nullptr});
        d.call(d.event_synchronize, stop.get());
        float ms = 0;
        d.call(d.event_elapsed_time, &ms, start.get(), stop.get());
        best_ms = i == 0 ? ms : std::min(best_ms, ms);
    }
    return best_ms > 0 ? static_cast<double>(bytes) / (best_ms * 1e6) : 0;
}

std::uint64_t free_now() {
    const cuda::DriverApi& d = cuda::driver();
    (void)cuda::current_device();
    std::size_t free = 0, total = 0;
    d.call(d.mem_get_info, &free, &total);
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
    if (block.get() == nullptr) {
        const cuda::DriverApi& d = cuda::driver();
        d.check(CUDA_ERROR_OUT_OF_MEMORY, std::string(d.mem_alloc.name) + " (read reference)");
    }
    return read_gbps(block.get(), bytes, sum);
}

DeviceFiller::DeviceFiller(std::uint64_t free_target, std::uint64_t resolution) {
    // Big chunks first, halving when one does not fit, until free is within resolution.
    const cuda::DriverApi& d = cuda::driver();
    std::uint64_t free = free_now();
    while (free > free_target + resolution) {
        std::uint64_t chunk = (free - free_target) / resolution * resolution;
        CUdeviceptr p = 0;
        while (chunk >= resolution &&
               d.status(d.mem_alloc, &p, static_cast<std::size_t>(chunk)) != CUDA_SUCCESS) {
            chunk = chunk / 2 / resolution * resolution;
        }
        if (chunk < resolution) break;
        chunks_.emplace_back(as_pointer(p), chunk);
        filled_ += chunk;
        d.call(d.memset_d8, p, kFillByte, static_cast<std::size_t>(chunk));
        d.call(d.ctx_synchronize);
        const std::uint64_t now = free_now();
        if (now >= free) break;  // the driver did not take it from free memory: stop
        free = now;
    }
    free_after_ = free_now();
}

DeviceFiller::~DeviceFiller() {
    for (const auto& [p, n] : chunks_) {
        cuda::call_quietly(&cuda::DriverApi::mem_free, reinterpret_cast<CUdeviceptr>(p));
    }
}

std::string DeviceFiller::intact() const {
    const cuda::DriverApi& d = cuda::driver();
    const ResultWord sum;
    std::string problem;
    for (std::size_t i = 0; i < chunks_.size() && problem.empty(); ++i) {
        const auto [p, n] = chunks_[i];
        d.call(d.memset_d8, sum.address(), static_cast<unsigned char>(0), sizeof(unsigned long long));
        cuda::launch_checksum(p, n, sum.get(), nullptr);
        unsigned long long got = 0;
        d.call(d.memcpy_dtoh, static_cast<void*>(&got), sum.address(), sizeof got);
        // Every 32-bit word is 0x5A5A5A5A (chunks are multiples of the resolution, so of 4).
        const unsigned long long expected = (n / 4) * 0x5A5A5A5AULL;
        if (got != expected) problem = "filler chunk " + std::to_string(i) + " no longer holds its pattern";
    }
    return problem;
}

}  // namespace pinbench
