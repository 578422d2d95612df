#include "run/measuring_devices.hpp"

#include "pinbench/vocabulary/errors.hpp"
#include "run/measuring_probes.hpp"

namespace pinbench {

double ms_between(SteadyClock::time_point a, SteadyClock::time_point b) {
    return std::chrono::duration<double, std::milli>(b - a).count();
}

void Devices::synchronize() const {
    for (const auto& c : contexts) c->synchronize();
    if (!contexts.empty()) contexts.front()->synchronize();  // device 0 current again
}

void Devices::open(int id, bool with_workspace) {
    ids.push_back(id);
    contexts.push_back(std::make_unique<DeviceContext>(id));
    if (with_workspace) workspaces.push_back(std::make_unique<GpuUseWorkspace>());
    if (contexts.size() > 1) contexts.front()->synchronize();
}

void Devices::use_everywhere(const std::vector<std::unique_ptr<HostBuffer>>& buffers) const {
    for (std::size_t d = 0; d < contexts.size() && d < workspaces.size(); ++d) {
        contexts[d]->synchronize();  // makes device d current for its copies
        for (const auto& b : buffers) first_gpu_use(*b, *workspaces[d]);
    }
    synchronize();
}

void require_devices(int n) {
    std::string why;
    const int have = cuda_device_count(&why);
    if (have < n) {
        throw UnsupportedError("needs " + std::to_string(n) + " GPU(s), this machine has " +
                               std::to_string(have) + (why.empty() ? "" : " (" + why + ")"));
    }
}

Devices open_devices(int n, bool with_workspaces) {
    require_devices(n);
    Devices d;
    for (int i = 0; i < n; ++i) d.open(i, with_workspaces);
    d.synchronize();
    return d;
}

ProbeSet all_device_probes(const Nvml* nvml) {
    return make_measuring_probes({0}, nvml, NvmlScope::every_device);
}

Snapshot immediate_snapshot(const ProbeSet& probes, std::string label, SteadyClock::time_point start) {
    Snapshot s;
    s.label = std::move(label);
    const auto begin = SteadyClock::now();
    s.readings = probes.read_all();
    const auto end = SteadyClock::now();
    s.window = {steady_ns(begin), steady_ns(end), steady_ns(end)};
    s.t_ms = ms_between(start, end);
    return s;
}

}  // namespace pinbench
