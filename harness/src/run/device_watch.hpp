// The parent's watch over the devices while a child measures: a thread that polls NVML device
// usage and the compute and graphics process lists every `interval` and keeps the changes.
// The parent never creates a CUDA context, so the watch itself moves nothing it observes.
#pragma once

#include <chrono>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <thread>
#include <vector>

#include "pinbench/cuda/nvml.hpp"
#include "run/disturbance.hpp"

namespace pinbench {

// One read of every watched device: used bytes and the processes on it (with names filled in
// for pids not seen before, into `names`).
WatchSample read_watch_sample(const Nvml& nvml, const std::vector<unsigned>& devices);

// The census of who else is on the GPU, shared by the watch and the leftover check: processes
// named pinbench / pinbench.exe (an earlier, cancelled run's children and workers) on
// `devices`, other than `self`.
struct GpuProcessNamed {
    GpuProcessUse process;
    std::string name;
};
std::vector<GpuProcessNamed> pinbench_processes(const Nvml& nvml, const std::vector<unsigned>& devices,
                                                std::uint32_t self);
// "the GPU is in use by an earlier pinbench: pid 1234 (pinbench) on GPU 0 holding 584 MiB, ..."
std::string describe_leftovers(const std::vector<GpuProcessNamed>& left);

// The check `run` and `doctor` make before measuring: the leftovers on the GPUs the
// environment record describes, described, or "" when there are none.
std::string leftovers_on_gpu(const Nvml& nvml, const nlohmann::json& environment);
inline constexpr const char* leftover_advice = "; end them first (kill PID), or pass --allow-busy-gpu";

class DeviceWatch {
public:
    // Starts polling at once; the first sample is taken before the constructor returns.
    DeviceWatch(const Nvml& nvml, std::vector<unsigned> devices, std::chrono::milliseconds interval);
    ~DeviceWatch();  // stops the thread
    DeviceWatch(const DeviceWatch&) = delete;
    DeviceWatch& operator=(const DeviceWatch&) = delete;

    // The first and the last sample taken (copies).
    WatchSample first() const;
    WatchSample latest() const;
    // Stops polling (one last read first) and returns what was seen.
    WatchTrace finish();

private:
    void poll_once();
    const Nvml& nvml_;
    std::chrono::milliseconds interval_;
    mutable std::mutex mutex_;
    WatchTrace trace_;
    WatchSample first_, latest_;
    std::jthread thread_;
};

}  // namespace pinbench
