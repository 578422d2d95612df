#include <algorithm>
#include <optional>

#include "trace/device_samples.hpp"

namespace pinbench::trace {
namespace {

const DeviceReading* reading_of(const DeviceSample& s, unsigned index) {
    for (const auto& d : s.devices) {
        if (d.nvml_index == index) return &d;
    }
    return nullptr;
}

std::uint64_t own_used(const DeviceReading& d, const std::set<std::uint32_t>& pids) {
    std::uint64_t sum = 0;
    for (const auto& [pid, used] : d.processes) {
        if (pids.count(pid) != 0) sum += used;
    }
    return sum;
}

std::int64_t median(std::vector<std::int64_t> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace

PeakCost cost_at_peak(const PinnedTimeline& timeline, const std::vector<PinCall>& calls,
                      const std::vector<DeviceSample>& samples, const std::set<std::uint32_t>& traced_pids,
                      std::int64_t end_ns) {
    PeakCost out;
    if (samples.empty()) return out;
    std::int64_t first_pin = timeline.points.empty() ? end_ns : timeline.points.front().t_ns;
    for (const PinCall& c : calls) {
        if (!api_family(c.api).empty()) first_pin = std::min(first_pin, c.t_ns);
    }
    // The baseline: the last consistent sample before the first pinning call in which a traced
    // process is listed, i.e. once the program's context exists (docs/trace.md).
    const auto listed = [&](const DeviceSample& s) {
        for (const DeviceReading& d : s.devices) {
            for (const auto& [pid, used] : d.processes) {
                if (traced_pids.count(pid) != 0) return true;
            }
        }
        return false;
    };
    const DeviceSample* base = nullptr;
    const DeviceSample* with_context = nullptr;
    for (const DeviceSample& s : samples) {
        if (s.t_ns >= first_pin) break;
        if (!s.consistent) continue;
        base = &s;
        if (listed(s)) with_context = &s;
    }
    if (with_context != nullptr) base = with_context;
    if (base == nullptr) base = &samples.front();
    out.baseline_before_context = with_context == nullptr;
    out.baseline_t_ns = base->t_ns;
    out.baseline_before_first_pin = base->t_ns < first_pin;

    const std::int64_t from = timeline.peak_t_ns;
    const std::int64_t to = timeline.peak_end_ns != 0 ? timeline.peak_end_ns : end_ns;
    for (const DeviceReading& b : base->devices) {
        DeviceCostAtPeak cost;
        cost.nvml_index = b.nvml_index;
        std::vector<std::int64_t> values, device_deltas, own_deltas;
        std::set<std::string> disturbances;
        if (timeline.peak_held == 0) {
            cost.why = "nothing was pinned";
        } else if (!b.used || !b.processes_known) {
            cost.why = "NVML gave no device-level or per-process figure for this device";
        } else {
            for (const DeviceSample& s : samples) {
                if (s.t_ns < from || s.t_ns >= to || !s.consistent) continue;
                const DeviceReading* r = reading_of(s, b.nvml_index);
                if (r == nullptr || !r->used || !r->processes_known) continue;
                const auto dev = static_cast<std::int64_t>(*r->used) - static_cast<std::int64_t>(*b.used);
                const auto own = static_cast<std::int64_t>(own_used(*r, traced_pids)) -
                                 static_cast<std::int64_t>(own_used(b, traced_pids));
                device_deltas.push_back(dev);
                own_deltas.push_back(own);
                values.push_back(dev - own);
                // A neighbour that appeared, left or changed its memory makes the difference
                // meaningless: report it (the disturbance rule), never fold it in.
                for (const auto& [pid, used] : r->processes) {
                    if (traced_pids.count(pid) != 0) continue;
                    const auto was = b.processes.find(pid);
                    if (was == b.processes.end()) {
                        disturbances.insert("pid " + std::to_string(pid) + " appeared");
                    } else if (was->second != used) {
                        disturbances.insert("pid " + std::to_string(pid) + " changed its device memory");
                    }
                }
                for (const auto& [pid, used] : b.processes) {
                    if (traced_pids.count(pid) == 0 && r->processes.count(pid) == 0) {
                        disturbances.insert("pid " + std::to_string(pid) + " left");
                    }
                }
            }
            if (values.empty()) {
                cost.why =
                    "no device sample fell while the peak was held (hold it longer than the sampling "
                    "interval)";
            } else {
                cost.cost = median(values);
                cost.device_delta = median(device_deltas);
                cost.own_delta = median(own_deltas);
            }
        }
        cost.samples = static_cast<int>(values.size());
        cost.disturbances.assign(disturbances.begin(), disturbances.end());
        out.devices.push_back(std::move(cost));
    }
    return out;
}

}  // namespace pinbench::trace
