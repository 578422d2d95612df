// CUDA core: what device memory a process can still get, the question behind the reservation
// rule. Used by the capacity and fragmentation kinds (docs/kinds.md).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pinbench {

// The largest single cudaMalloc block found by bisection on the current device. Every
// candidate is allocated, touched (cudaMemset) and freed; a candidate that fails to allocate
// or to touch counts as too large.
struct BlockSearch {
    std::uint64_t largest = 0;  // bytes, a multiple of `resolution`
    int candidates = 0;         // allocations tried
    double read_gbps = 0;       // a kernel reading the largest block (0 when not measured)
};
BlockSearch largest_device_block(std::uint64_t upper, std::uint64_t resolution, bool measure_read);

// GB/s of a kernel reading `bytes` of fresh device memory on the current device: the
// reference against which a found block's read speed tells device memory from system memory.
double device_read_gbps(std::uint64_t bytes);

// Holds cudaMalloc'd chunks on the current device until cudaMemGetInfo's free is at most
// `free_target` (within `resolution`). The chunks carry a pattern, so intact() can tell
// whether anything was evicted or overwritten while they were held.
class DeviceFiller {
public:
    DeviceFiller(std::uint64_t free_target, std::uint64_t resolution);
    ~DeviceFiller();
    DeviceFiller(const DeviceFiller&) = delete;
    DeviceFiller& operator=(const DeviceFiller&) = delete;

    std::uint64_t filled_bytes() const { return filled_; }
    std::uint64_t free_after_fill() const { return free_after_; }
    // Empty when every chunk still holds its pattern; else which chunk differed.
    std::string intact() const;

private:
    std::vector<std::pair<void*, std::uint64_t>> chunks_;
    std::uint64_t filled_ = 0;
    std::uint64_t free_after_ = 0;
};

}  // namespace pinbench
