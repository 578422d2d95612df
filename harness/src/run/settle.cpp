#include "run/settle.hpp"

#include <algorithm>
#include <cstdlib>
#include <thread>

#include "pinbench/platform/interrupt.hpp"
#include "run/device_watch.hpp"

namespace pinbench {
namespace {

double ms_since(SteadyClock::time_point t) {
    return std::chrono::duration<double, std::milli>(SteadyClock::now() - t).count();
}

bool same_available_values(const Readings& a, const Readings& b) {
    for (const auto& [key, r] : a) {
        auto it = b.find(key);
        if (it == b.end() || it->second.bytes != r.bytes) return false;
    }
    return a.size() == b.size();
}

}  // namespace

Snapshot settled_snapshot(const ProbeSet& probes, std::string label, SteadyClock::time_point start,
                          const SettleOptions& options) {
    const auto begin = SteadyClock::now();
    Readings last = probes.read_all();
    auto stable_since = begin;  // the first of the reads that agree
    int equal = 1;
    bool stable = options.equal_reads <= 1;
    while (!stable) {
        if (SteadyClock::now() - begin >= options.limit) break;
        std::this_thread::sleep_for(options.interval);
        const auto read_at = SteadyClock::now();
        Readings next = probes.read_all();
        if (same_available_values(last, next)) {
            ++equal;
        } else {
            equal = 1;
            stable_since = read_at;
        }
        last = std::move(next);
        stable = equal >= options.equal_reads;
    }
    Snapshot s;
    s.window = {steady_ns(begin), steady_ns(stable_since), steady_ns(SteadyClock::now())};
    s.label = std::move(label);
    s.settle_ms = ms_since(begin);
    s.t_ms = ms_since(start);
    s.stable = stable;
    s.readings = std::move(last);
    return s;
}

DeviceLevel read_device_level(const Nvml& nvml, const std::vector<unsigned>& devices) {
    // The watch's census (run/device_watch.hpp), compute processes only as before.
    const WatchSample sample = read_watch_sample(nvml, devices);
    DeviceLevel level;
    level.used = sample.used;
    for (const auto& p : sample.processes) {
        if (!p.graphics) level.processes.push_back(p.pid);
    }
    std::sort(level.processes.begin(), level.processes.end());
    level.processes.erase(std::unique(level.processes.begin(), level.processes.end()), level.processes.end());
    return level;
}

DeviceWait wait_for_device_level(const Nvml& nvml, const std::vector<unsigned>& devices,
                                 const DeviceLevel& baseline, std::int64_t tolerance,
                                 std::chrono::milliseconds limit) {
    const auto begin = SteadyClock::now();
    DeviceWait wait;
    for (;;) {
        const DeviceLevel now = read_device_level(nvml, devices);
        bool back = now.processes == baseline.processes && now.used.size() == baseline.used.size();
        for (std::size_t i = 0; back && i < now.used.size(); ++i) {
            if (now.used[i] >= 0 && baseline.used[i] >= 0 &&
                std::llabs(now.used[i] - baseline.used[i]) > tolerance) {
                back = false;
            }
        }
        wait.waited_ms = ms_since(begin);
        if (back || stop_signal() != 0) return wait;
        if (SteadyClock::now() - begin >= limit) {
            wait.settled = false;
            wait.note = "device usage or compute process list did not return to the pre-run level within " +
                        std::to_string(limit.count()) + " ms";
            return wait;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

SettledLevel settled_device_level(const Nvml& nvml, const std::vector<unsigned>& devices,
                                  std::chrono::milliseconds limit, int equal_reads) {
    const auto begin = SteadyClock::now();
    SettledLevel out;
    out.level = read_device_level(nvml, devices);
    for (int equal = 1; equal < equal_reads && stop_signal() == 0;) {
        if (SteadyClock::now() - begin >= limit) {
            out.wait.settled = false;
            out.wait.note = "device usage or compute process list still moved " +
                            std::to_string(limit.count()) + " ms after the driver holder started or stopped";
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        DeviceLevel next = read_device_level(nvml, devices);
        equal = next.used == out.level.used && next.processes == out.level.processes ? equal + 1 : 1;
        out.level = std::move(next);
    }
    out.wait.waited_ms = ms_since(begin);
    return out;
}

}  // namespace pinbench
