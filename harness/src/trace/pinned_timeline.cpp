#include "trace/pinned_timeline.hpp"

#include <algorithm>
#include <set>
#include <tuple>

namespace pinbench::trace {

std::string call_site(const std::vector<std::string>& stack) {
    for (const std::string& frame : stack) {
        const auto bang = frame.find('!');
        const std::string module = frame.substr(0, std::min(frame.find('+'), bang));
        const std::string symbol = bang == std::string::npos ? std::string() : frame.substr(bang + 1);
        const bool cuda_side = module.rfind("libcuda.", 0) == 0 || module.rfind("libcupti", 0) == 0 ||
                               module.rfind("libcudart", 0) == 0 ||
                               module.rfind("libpinbench_trace", 0) == 0 || module.rfind("nvcuda", 0) == 0 ||
                               module.rfind("cupti", 0) == 0 || module.rfind("cudart", 0) == 0;
        // A static cudart sits inside the program's own module: skip its entry points by name.
        const bool runtime_symbol = symbol.rfind("cuda", 0) == 0 || symbol.rfind("__cudart", 0) == 0;
        if (!cuda_side && !runtime_symbol) return frame;
    }
    return "unknown";
}

namespace {

// Live allocations are keyed by (process, family, address): a free releases what the same
// process's matching call acquired at that address.
using Key = std::tuple<std::uint32_t, std::string, std::uint64_t>;

}  // namespace

PinnedTimeline build_timeline(const std::vector<PinCall>& input) {
    std::vector<PinCall> calls = input;
    std::stable_sort(calls.begin(), calls.end(),
                     [](const PinCall& a, const PinCall& b) { return a.t_ns < b.t_ns; });

    PinnedTimeline t;
    std::map<Key, Holding> live;
    std::map<std::pair<std::uint32_t, std::uint64_t>, Holding> pools;  // (pid, pool) -> reserved
    std::uint64_t held = 0;
    std::map<std::string, std::uint64_t> by_family;

    auto snapshot_peak = [&](std::int64_t when) {
        t.peak_held = held;
        t.peak_t_ns = when;
        t.peak_end_ns = 0;
        t.at_peak.clear();
        for (const auto& [key, h] : live) t.at_peak.push_back(h);
        for (const auto& [key, h] : pools) {
            if (h.bytes > 0) t.at_peak.push_back(h);
        }
        std::stable_sort(t.at_peak.begin(), t.at_peak.end(),
                         [](const Holding& a, const Holding& b) { return a.bytes > b.bytes; });
        t.peak_by_family = by_family;
        t.peak_by_device.clear();
        t.peak_by_site.clear();
        t.peak_by_pid.clear();
        for (const Holding& h : t.at_peak) {
            t.peak_by_device[h.device] += h.bytes;
            t.peak_by_site[h.site] += h.bytes;
            t.peak_by_pid[h.pid] += h.bytes;
        }
    };

    for (const PinCall& c : calls) {
        const std::string family = api_family(c.api);
        if (family.empty()) continue;
        ApiTotals& totals = t.by_api[c.api];
        ++totals.calls;
        const bool ok = c.result == 0;
        if (!ok) ++totals.failed;
        const std::uint64_t before = held;
        switch (effect_of(c.api)) {
            case ApiEffect::acquire:
                if (!ok) break;
                totals.bytes_asked += c.bytes;
                live[{c.pid, family, c.address}] =
                    Holding{c.api, c.bytes, c.pid, c.device, call_site(c.stack)};
                held += c.bytes;
                by_family[family] += c.bytes;
                break;
            case ApiEffect::release: {
                if (!ok) break;
                const auto it = live.find({c.pid, family, c.address});
                if (it == live.end()) {
                    ++t.unmatched_releases;
                    break;
                }
                held -= it->second.bytes;
                by_family[family] -= it->second.bytes;
                live.erase(it);
                break;
            }
            case ApiEffect::pool_reserved: {
                if (ok && c.api.rfind("cuMemAllocFromPoolAsync", 0) == 0) totals.bytes_asked += c.bytes;
                if (!c.pool_reserved) break;  // a free: the pool's reservation is unchanged
                Holding& pool = pools[{c.pid, c.pool}];
                if (pool.api.empty()) {
                    pool = Holding{"cuMemPoolCreate", 0, c.pid, c.device, call_site(c.stack)};
                }
                held = held - pool.bytes + *c.pool_reserved;
                by_family[family] = by_family[family] - pool.bytes + *c.pool_reserved;
                pool.bytes = *c.pool_reserved;
                break;
            }
            case ApiEffect::none:
                break;
        }
        if (held == before) continue;
        if (t.peak_held > 0 && t.peak_end_ns == 0 && held < t.peak_held) t.peak_end_ns = c.t_ns;
        t.points.push_back({c.t_ns, held, by_family});
        if (held > t.peak_held) snapshot_peak(c.t_ns + c.duration_ns);
    }
    return t;
}

}  // namespace pinbench::trace
