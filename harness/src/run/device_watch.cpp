#include "run/device_watch.hpp"

#include <algorithm>

#include "pinbench/platform/process_info.hpp"
#include "pinbench/probes/platform_probes.hpp"
#include "run/settle.hpp"
#include "run/watched_attempt.hpp"

namespace pinbench {

WatchSample read_watch_sample(const Nvml& nvml, const std::vector<unsigned>& devices) {
    WatchSample s;
    s.t_ns = steady_ns(SteadyClock::now());
    for (unsigned d : devices) {
        const auto mem = nvml.memory(d);
        s.used.push_back(mem.used.value ? static_cast<std::int64_t>(*mem.used.value) : -1);
        for (const bool graphics : {false, true}) {
            const auto procs = graphics ? nvml.graphics_processes(d) : nvml.compute_processes(d);
            if (!procs.value) {
                // The compute list is the one CUDA neighbours are on; a compute-only GPU may
                // refuse the graphics list and still list every CUDA process.
                if (!graphics && s.no_process_list.empty()) s.no_process_list = procs.why;
                continue;
            }
            for (const auto& p : *procs.value) {
                s.processes.push_back(
                    {p.pid, d, p.used.value ? static_cast<std::int64_t>(*p.used.value) : -1, graphics});
            }
        }
    }
    std::sort(s.processes.begin(), s.processes.end(), [](const GpuProcessUse& a, const GpuProcessUse& b) {
        return std::tie(a.device, a.pid, a.graphics) < std::tie(b.device, b.pid, b.graphics);
    });
    s.done_ns = steady_ns(SteadyClock::now());
    return s;
}

std::vector<GpuProcessNamed> pinbench_processes(const Nvml& nvml, const std::vector<unsigned>& devices,
                                                std::uint32_t self) {
    std::vector<GpuProcessNamed> out;
    for (const auto& p : read_watch_sample(nvml, devices).processes) {
        if (p.pid == self) continue;
        // The executable itself (not tools/neighbour's pinbench_neighbour, nor other programs).
        const std::string name = process_name(p.pid);
        if (name == "pinbench" || name == "pinbench.exe") out.push_back({p, name});
    }
    return out;
}

std::string describe_leftovers(const std::vector<GpuProcessNamed>& left) {
    std::string text;
    for (const auto& l : left) {
        text += (text.empty() ? "" : ", ") + std::string("pid ") + std::to_string(l.process.pid) + " (" +
                l.name + ") on GPU " + std::to_string(l.process.device);
        if (l.process.used >= 0) text += " holding " + signed_bytes_text(l.process.used).substr(1);
    }
    return "the GPU is in use by an earlier pinbench: " + text;
}

std::string leftovers_on_gpu(const Nvml& nvml, const nlohmann::json& environment) {
    const auto left =
        pinbench_processes(nvml, watch_plan_for(environment, 1, 0).devices, current_process_id());
    return left.empty() ? std::string() : describe_leftovers(left);
}

DeviceWatch::DeviceWatch(const Nvml& nvml, std::vector<unsigned> devices, std::chrono::milliseconds interval)
    : nvml_(nvml), interval_(interval) {
    trace_.devices = std::move(devices);
    poll_once();
    thread_ = std::jthread([this](const std::stop_token& stop) {
        while (!stop.stop_requested()) {
            std::this_thread::sleep_for(interval_);
            poll_once();
        }
    });
}

DeviceWatch::~DeviceWatch() {
    thread_.request_stop();
    if (thread_.joinable()) thread_.join();
}

void DeviceWatch::poll_once() {
    const auto t0 = SteadyClock::now();
    WatchSample s = read_watch_sample(nvml_, trace_.devices);
    const double ms = std::chrono::duration<double, std::milli>(SteadyClock::now() - t0).count();
    std::lock_guard lock(mutex_);
    s.since_ns = trace_.reads == 0 ? s.t_ns : latest_.t_ns;
    for (const auto& p : s.processes) {
        if (!trace_.names.contains(p.pid)) trace_.names[p.pid] = process_name(p.pid);
    }
    if (trace_.reads == 0) first_ = s;
    ++trace_.reads;
    trace_.read_ms_total += ms;
    latest_ = s;
    append_if_changed(trace_, std::move(s));
}

WatchSample DeviceWatch::first() const {
    std::lock_guard lock(mutex_);
    return first_;
}

WatchSample DeviceWatch::latest() const {
    std::lock_guard lock(mutex_);
    return latest_;
}

WatchTrace DeviceWatch::finish() {
    thread_.request_stop();
    if (thread_.joinable()) thread_.join();
    poll_once();
    std::lock_guard lock(mutex_);
    // The last read always stays, so the trace says until when it looked.
    if (trace_.samples.empty() || trace_.samples.back().t_ns != latest_.t_ns) {
        trace_.samples.push_back(latest_);
    }
    return trace_;
}

}  // namespace pinbench
