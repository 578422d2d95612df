#include "trace/device_sampler.hpp"

namespace pinbench::trace {

DeviceSampler::DeviceSampler(const Nvml& nvml, std::chrono::milliseconds interval)
    : nvml_(nvml), interval_(interval), thread_([this] { loop(); }) {}

DeviceSampler::~DeviceSampler() { finish(); }

std::vector<DeviceSample> DeviceSampler::finish() {
    {
        const std::scoped_lock lock(mutex_);
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) {
        thread_.join();
        samples_.push_back(sample_now());
    }
    return samples_;
}

void DeviceSampler::loop() {
    std::unique_lock lock(mutex_);
    while (!stopping_) {
        lock.unlock();
        DeviceSample s = sample_now();
        lock.lock();
        samples_.push_back(std::move(s));
        wake_.wait_for(lock, interval_, [this] { return stopping_; });
    }
}

DeviceSample DeviceSampler::sample_now() const {
    const auto processes_of = [&](unsigned i, DeviceReading& r) {
        r.processes.clear();
        r.processes_known = false;
        if (const auto processes = nvml_.compute_processes(i); processes.value) {
            r.processes_known = true;
            for (const NvmlProcess& p : *processes.value) {
                if (p.used.value) r.processes[p.pid] = *p.used.value;
            }
        }
    };
    DeviceSample s;
    // Up to three tries at a sample whose process list did not move while the device was read.
    for (int attempt = 0; attempt < 3; ++attempt) {
        s = DeviceSample{};
        s.t_ns = steady_ns(SteadyClock::now());
        s.consistent = true;
        for (unsigned i = 0; i < nvml_.device_count(); ++i) {
            DeviceReading r;
            r.nvml_index = i;
            processes_of(i, r);
            r.used = nvml_.memory(i).used.value;
            DeviceReading again;
            processes_of(i, again);
            if (again.processes != r.processes) s.consistent = false;
            s.devices.push_back(std::move(r));
        }
        if (s.consistent) break;
    }
    return s;
}

}  // namespace pinbench::trace
