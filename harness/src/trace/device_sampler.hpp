// Samples NVML device and per-process memory on a thread of its own while a traced program
// runs (the program's own view is the injection's; this is the device's). Stops and joins on
// destruction.
#pragma once

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "pinbench/cuda/nvml.hpp"
#include "run/settle.hpp"
#include "trace/device_samples.hpp"

namespace pinbench::trace {

class DeviceSampler {
public:
    DeviceSampler(const Nvml& nvml, std::chrono::milliseconds interval);
    ~DeviceSampler();
    DeviceSampler(const DeviceSampler&) = delete;
    DeviceSampler& operator=(const DeviceSampler&) = delete;

    // Stops sampling (one last sample first) and returns every sample taken.
    std::vector<DeviceSample> finish();

private:
    void loop();
    DeviceSample sample_now() const;

    const Nvml& nvml_;
    std::chrono::milliseconds interval_;
    std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    std::vector<DeviceSample> samples_;
    std::thread thread_;
};

}  // namespace pinbench::trace
