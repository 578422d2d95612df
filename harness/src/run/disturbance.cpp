#include "run/disturbance.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <utility>

namespace pinbench {
namespace {

std::string name_of(const WatchTrace& trace, std::uint32_t pid) {
    const auto it = trace.names.find(pid);
    return it == trace.names.end() || it->second.empty() ? "" : " (" + it->second + ")";
}

double seconds_into(std::int64_t t_ns, std::int64_t begin_ns) {
    return static_cast<double>(t_ns - begin_ns) / 1e9;
}

std::string at_text(std::int64_t t_ns, std::int64_t begin_ns) {
    char buf[48];
    std::snprintf(buf, sizeof buf, " at +%.3f s", seconds_into(t_ns, begin_ns));
    return buf;
}

// The state in force at `t`: the last kept sample at or before it (samples hold changes only).
const WatchSample* state_at(const WatchTrace& trace, std::int64_t t) {
    const WatchSample* s = nullptr;
    for (const auto& sample : trace.samples) {
        if (sample.t_ns > t) break;
        s = &sample;
    }
    return s;
}

using ProcessKey = std::pair<unsigned, std::uint32_t>;  // (device, pid)

std::map<ProcessKey, const GpuProcessUse*> foreign(const WatchSample& s, const std::set<std::uint32_t>& own) {
    std::map<ProcessKey, const GpuProcessUse*> out;
    for (const auto& p : s.processes) {
        if (!own.contains(p.pid)) out[{p.device, p.pid}] = &p;
    }
    return out;
}

void add(Disturbance& d, Evidence e) {
    d.devices.insert(e.device);
    d.evidence.push_back(std::move(e));
}

}  // namespace

std::string signed_bytes_text(std::int64_t bytes) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    const std::int64_t magnitude = bytes < 0 ? -bytes : bytes;
    int u = 0;
    double v = static_cast<double>(magnitude);
    while (v >= 1024 && u < 4) {
        v /= 1024;
        ++u;
    }
    char buf[48];
    if (v == static_cast<double>(static_cast<long long>(v))) {
        std::snprintf(buf, sizeof buf, "%s%lld %s", bytes < 0 ? "-" : "+", static_cast<long long>(v),
                      units[u]);
    } else {
        std::snprintf(buf, sizeof buf, "%s%.1f %s", bytes < 0 ? "-" : "+", v, units[u]);
    }
    return buf;
}

void append_if_changed(WatchTrace& trace, WatchSample sample) {
    if (trace.no_process_list.empty()) trace.no_process_list = sample.no_process_list;
    if (!trace.samples.empty()) {
        const WatchSample& last = trace.samples.back();
        if (last.used == sample.used && last.processes == sample.processes) return;  // since_ns aside
    }
    trace.samples.push_back(std::move(sample));
}

Disturbance judge_attempt(const WatchTrace& trace, const AttemptWindow& w, std::int64_t tolerance) {
    Disturbance d;
    // Processes: any change of a process that is not ours, anywhere in the window.
    const WatchSample* prev = state_at(trace, w.begin_ns);
    for (const auto& cur : trace.samples) {
        if (cur.t_ns <= w.begin_ns || cur.t_ns > w.end_ns) continue;
        if (prev != nullptr) {
            const auto before = foreign(*prev, w.own_pids);
            const auto after = foreign(cur, w.own_pids);
            for (const auto& [k, p] : after) {
                const auto b = before.find(k);
                if (b == before.end()) {
                    add(d, {"process_appeared", k.first, k.second, p->used < 0 ? 0 : p->used, cur.t_ns,
                            "pid " + std::to_string(k.second) + name_of(trace, k.second) +
                                " appeared on GPU " + std::to_string(k.first) +
                                (p->used >= 0 ? " holding " + signed_bytes_text(p->used).substr(1) : "") +
                                at_text(cur.t_ns, w.begin_ns)});
                } else if (p->used >= 0 && b->second->used >= 0 && p->used != b->second->used) {
                    const std::int64_t delta = p->used - b->second->used;
                    add(d, {"process_memory", k.first, k.second, delta, cur.t_ns,
                            "pid " + std::to_string(k.second) + name_of(trace, k.second) +
                                " changed its memory on GPU " + std::to_string(k.first) + " by " +
                                signed_bytes_text(delta) + at_text(cur.t_ns, w.begin_ns)});
                }
            }
            for (const auto& [k, p] : before) {
                if (!after.contains(k)) {
                    add(d, {"process_left", k.first, k.second, p->used < 0 ? 0 : -p->used, cur.t_ns,
                            "pid " + std::to_string(k.second) + name_of(trace, k.second) + " left GPU " +
                                std::to_string(k.first) + at_text(cur.t_ns, w.begin_ns)});
                }
            }
        }
        prev = &cur;
    }
    // Device usage that moved while the child was idle (between its snapshot's stable reads).
    // A change counts only when the read before it (which still saw the old state) lies inside
    // the idle window too: a poll that lands just after the child's own step sees that step.
    // And only when the read that saw it ended inside the window: a read begun just before the
    // window ends can see the child's next step (its free after the snapshot), once under Wine,
    // where a read of the double's NVML is slow (a positive control DISTURBED by its own -1 GiB).
    // Idle windows can overlap (the null control's do): a move is evidence once, however many
    // windows hold its sample, so "moved N times" counts moves, not windows.
    std::set<std::pair<unsigned, std::int64_t>> idle_moves_seen;  // (device, sample time)
    for (const auto& idle : w.idle) {
        if (idle.end_ns <= idle.stable_ns) continue;
        const WatchSample* start = state_at(trace, idle.stable_ns);
        if (start == nullptr) continue;
        for (const auto& s : trace.samples) {
            if (s.t_ns <= idle.stable_ns || std::max(s.t_ns, s.done_ns) > idle.end_ns) continue;
            if (s.since_ns < idle.stable_ns) {
                start = &s;  // changed before the window began, seen only now
                continue;
            }
            for (std::size_t i = 0; i < s.used.size() && i < start->used.size(); ++i) {
                if (s.used[i] < 0 || start->used[i] < 0 || s.used[i] == start->used[i]) continue;
                if (!idle_moves_seen.emplace(trace.devices[i], s.t_ns).second) continue;
                const std::int64_t delta = s.used[i] - start->used[i];
                add(d, {"idle_move", trace.devices[i], 0, delta, s.t_ns,
                        "GPU " + std::to_string(trace.devices[i]) + " usage moved by " +
                            signed_bytes_text(delta) + " while the measuring process was idle" +
                            at_text(s.t_ns, w.begin_ns)});
            }
            start = &s;
        }
    }
    // Once the child is gone, every byte it held is returned: what is not came from elsewhere.
    if (!w.returned) {
        for (std::size_t i = 0; i < w.return_gap.size() && i < trace.devices.size(); ++i) {
            if (std::llabs(w.return_gap[i]) <= tolerance) continue;
            add(d, {"not_returned", trace.devices[i], 0, w.return_gap[i], w.end_ns,
                    "GPU " + std::to_string(trace.devices[i]) + " usage was " +
                        signed_bytes_text(w.return_gap[i]) +
                        " off its level before the repeat after the measuring process had exited"});
        }
    }
    return d;
}

bool is_device_level_key(const std::string& key) {
    if (key == "cuda.free") return true;
    if (key.starts_with("pdh.adapter.")) return true;
    if (key.starts_with("nvml.")) return !key.ends_with(".process_used") && !key.ends_with(".total");
    return false;
}

std::optional<unsigned> device_of_key(const std::string& key, std::optional<unsigned> cuda0) {
    if (!is_device_level_key(key)) return std::nullopt;
    if (key.starts_with("nvml.")) {
        const auto dot = key.find('.', 5);
        if (dot == std::string::npos) return std::nullopt;
        return static_cast<unsigned>(std::strtoul(key.substr(5, dot - 5).c_str(), nullptr, 10));
    }
    return cuda0;
}

namespace {

// Calls f(key, snapshot, cost) for each of `keys`, from the first snapshot to every later one
// that has it, in snapshot order; f returns false to stop with that key.
template <typename Keys, typename F>
void for_each_cost_from_first(const std::vector<Snapshot>& snapshots, const Keys& keys, F f) {
    if (snapshots.size() < 2) return;
    const Snapshot& first = snapshots.front();
    for (const auto& key : keys) {
        const auto base = first.readings.find(key);
        if (base == first.readings.end()) continue;
        for (std::size_t i = 1; i < snapshots.size(); ++i) {
            const auto r = snapshots[i].readings.find(key);
            if (r == snapshots[i].readings.end()) continue;
            const auto cost = cost_between(key, base->second, r->second);
            if (cost && !f(key, snapshots[i], *cost)) break;
        }
    }
}

}  // namespace

void add_negative_costs(const std::vector<Snapshot>& snapshots,
                        const std::map<std::string, unsigned>& key_device, std::int64_t tolerance,
                        Disturbance& d) {
    std::vector<std::string> keys;
    keys.reserve(key_device.size());
    for (const auto& [key, device] : key_device) keys.push_back(key);
    for_each_cost_from_first(
        snapshots, keys, [&](const std::string& key, const Snapshot& s, std::int64_t cost) {
            if (cost >= -tolerance) return true;
            add(d, {"negative_cost", key_device.at(key), 0, cost, s.window.end_ns,
                    key + " read " + signed_bytes_text(cost) + " at '" + s.label + "' against '" +
                        snapshots.front().label +
                        "': memory this process never held was freed (another process)"});
            return false;  // one line per key is enough
        });
}

std::vector<std::size_t> cost_outliers(const std::vector<const RepeatRecord*>& repeats,
                                       const std::set<unsigned>& devices, std::optional<unsigned> cuda0,
                                       std::int64_t tolerance, std::vector<std::string>* why) {
    std::vector<std::size_t> out;
    if (repeats.size() < 3) return out;
    // Per repeat, "label/key" -> cost of every device-level key of `devices`.
    std::vector<std::map<std::string, double>> costs;
    std::map<std::string, std::vector<double>> by_key;
    for (const RepeatRecord* r : repeats) {
        std::set<std::string> keys;
        for (const auto& s : r->snapshots) {
            for (const auto& [key, reading] : s.readings) {
                const auto dev = device_of_key(key, cuda0);
                if (dev && devices.contains(*dev) && describe_key(key).direction != Direction::fixed) {
                    keys.insert(key);
                }
            }
        }
        auto& c = costs.emplace_back();
        for_each_cost_from_first(r->snapshots, keys,
                                 [&](const std::string& key, const Snapshot& s, std::int64_t v) {
                                     c[s.label + "/" + key] = static_cast<double>(v);
                                     return true;
                                 });
        for (const auto& [k, v] : c) by_key[k].push_back(v);
    }
    std::map<std::string, double> median;  // over the keys every repeat has
    for (auto& [k, values] : by_key) {
        if (values.size() != repeats.size()) continue;
        const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
        std::nth_element(values.begin(), middle, values.end());
        median[k] = values[values.size() / 2];
    }
    for (std::size_t i = 0; i < repeats.size(); ++i) {
        for (const auto& [k, v] : costs[i]) {
            const auto m = median.find(k);
            if (m == median.end() || std::abs(v - m->second) <= static_cast<double>(tolerance)) continue;
            out.push_back(i);
            why->push_back(k + " read " + std::to_string(static_cast<long long>(v - m->second)) +
                           " B off the run's median while another process was on the GPU");
            break;
        }
    }
    return out;
}

std::vector<std::string> disturbed_keys(const std::set<std::string>& keys, const Disturbance& d,
                                        std::optional<unsigned> cuda0) {
    std::vector<std::string> out;
    for (const auto& k : keys) {
        const auto dev = device_of_key(k, cuda0);
        if (dev && d.devices.contains(*dev)) out.push_back(k);
    }
    return out;
}

nlohmann::json disturbance_json(const Disturbance& d, const std::vector<std::string>& probes) {
    if (!d.any()) return nullptr;
    nlohmann::json ev = nlohmann::json::array();
    for (const auto& e : d.evidence) {
        ev.push_back({{"what", e.what},
                      {"device", e.device},
                      {"pid", e.pid},
                      {"bytes", e.bytes},
                      {"t_ns", e.t_ns},
                      {"text", e.text}});
    }
    return {{"probes", probes}, {"evidence", ev}};
}

}  // namespace pinbench
