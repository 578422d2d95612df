#include "budget/budget_child.hpp"

#include <algorithm>
#include <cstdint>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pinbench/cuda/host_buffer.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "platform/host_memory.hpp"
#include "run/measuring_devices.hpp"

namespace pinbench {
namespace {

struct Limits {
    ApiVariant api;
    std::uint64_t cap = 0, chunk = 0, keep_free = 0, small = 0;
    SteadyClock::time_point deadline;
};

bool past(const Limits& l) { return SteadyClock::now() >= l.deadline; }

// What the host lets this process ask for now beyond what it holds: available minus keep_free,
// in whole chunks. Nothing known (no MemAvailable): the cap alone bounds the search.
std::optional<std::uint64_t> host_allows(const Limits& l) {
    const auto available = host_ram_available();
    if (!available) return std::nullopt;
    const std::uint64_t room = *available > l.keep_free ? *available - l.keep_free : 0;
    return room / l.chunk * l.chunk;
}

// One pin: its outcome and times. The buffer is kept when `keep` and it worked.
struct Pin {
    std::uint64_t bytes = 0;
    std::string error;       // the call failed (or the GPU could not copy from it)
    std::string not_pinned;  // it succeeded, yet the driver does not see it pinned
    double pin_ms = 0, touch_ms = 0;
    std::unique_ptr<HostBuffer> buffer;
    bool ok() const { return error.empty() && not_pinned.empty(); }
    nlohmann::json to_json() const {
        nlohmann::json j = {{"bytes", bytes}, {"ok", ok()}, {"pin_ms", pin_ms}};
        if (touch_ms > 0) j["touch_ms"] = touch_ms;
        if (!error.empty()) j["error"] = error;
        if (!not_pinned.empty()) j["not_pinned"] = not_pinned;
        return j;
    }
};

Pin pin(const Limits& l, std::uint64_t bytes, Devices& devices) {
    Pin p;
    p.bytes = bytes;
    const auto t0 = SteadyClock::now();
    try {
        p.buffer = allocate_host_buffer(l.api, bytes);
        p.touch_ms = p.buffer->first_touch_ms();
        p.pin_ms = std::max(0.0, ms_between(t0, SteadyClock::now()) - p.touch_ms);
        p.not_pinned = not_pinned_reason(*p.buffer);
        if (p.not_pinned.empty()) {
            std::vector<std::unique_ptr<HostBuffer>> one;
            one.push_back(std::move(p.buffer));
            devices.use_everywhere(one);  // usable, not just returned: the GPU copies from it
            p.buffer = std::move(one.front());
        }
    } catch (const CudaError& e) {
        p.error = e.what();
    } catch (const std::bad_alloc&) {
        p.error = "host allocation failed (std::bad_alloc)";
    }
    if (!p.ok()) p.buffer.reset();
    return p;
}

// After a failed call, with nothing held: does a small pin still work in this process?
nlohmann::json failure_check(const Limits& l, Devices& devices) {
    Pin p = pin(l, l.small, devices);
    nlohmann::json j = {{"bytes", l.small}, {"ok", p.ok()}, {"verdict", p.ok() ? "clean" : "poisons"}};
    if (!p.error.empty()) j["error"] = p.error;
    if (!p.not_pinned.empty()) j["error"] = "not pinned: " + p.not_pinned;
    return j;
}

std::string stop_of(const Pin& p) {
    return p.error.empty() ? budget_stop::silent_fallback : budget_stop::driver;
}
std::string reason_of(const Pin& p) { return p.error.empty() ? p.not_pinned : p.error; }

nlohmann::json single(const Limits& l, Devices& devices) {
    nlohmann::json out, tried = nlohmann::json::array();
    std::uint64_t lo = 0, hi = 0;  // lo pinned; hi (when > 0) did not
    std::string stopped_by, reason;
    std::optional<Pin> first_failure;
    std::uint64_t size = std::min(l.chunk, l.cap);
    while (true) {
        if (past(l)) {
            stopped_by = budget_stop::time_limit;
            break;
        }
        bool host_bound = false;
        if (const auto allowed = host_allows(l); allowed && size > *allowed) {
            if (*allowed <= lo) {
                stopped_by = budget_stop::host_available;
                break;
            }
            size = *allowed;
            host_bound = true;
        }
        Pin p = pin(l, size, devices);
        tried.push_back(p.to_json());
        if (!p.ok()) {
            hi = size;
            stopped_by = stop_of(p);
            reason = reason_of(p);
            first_failure = std::move(p);
            break;
        }
        lo = size;
        p.buffer.reset();
        if (size >= l.cap) {
            stopped_by = budget_stop::cap;
            break;
        }
        if (host_bound) {
            stopped_by = budget_stop::host_available;
            break;
        }
        size = std::min(size * 2, l.cap);
    }
    if (first_failure && !first_failure->error.empty()) {
        out["failure_check"] = failure_check(l, devices);
    }
    const bool poisoned = out.contains("failure_check") && !out["failure_check"]["ok"].get<bool>();
    bool bisected = hi > 0 && !poisoned;
    // Bisection in whole chunks between what pinned and what did not; a poisoned process would
    // only fail again, so it is not asked.
    while (bisected && hi - lo > l.chunk) {
        if (past(l)) {
            out["bisection_stopped_by"] = budget_stop::time_limit;
            break;
        }
        // At least one chunk above lo: a cap that is no whole number of chunks leaves hi - lo
        // between one and two chunks, where half of it rounds down to nothing.
        const std::uint64_t mid = lo + std::max(l.chunk, (hi - lo) / 2 / l.chunk * l.chunk);
        if (mid >= hi) break;
        Pin p = pin(l, mid, devices);
        tried.push_back(p.to_json());
        if (p.ok()) {
            lo = mid;
        } else {
            hi = mid;
            if (stop_of(p) == budget_stop::driver || stopped_by != budget_stop::driver) {
                stopped_by = stop_of(p);
                reason = reason_of(p);
            }
        }
    }
    out["largest"] = lo;
    if (hi > 0) out["smallest_failed"] = hi;
    out["stopped_by"] = stopped_by;
    if (!reason.empty()) out["reason"] = reason;
    out["tried"] = tried;
    if (poisoned) out["bisection_skipped"] = "the failure poisoned this process";
    return out;
}

// The cap in one pin, asked for when the held phase reached the cap in chunks with nothing
// failing (run/budget.cpp): where nothing fails below the cap this pin is the answer, and the
// doubling's pins of one chunk, two, four ... up to the cap (about twice the cap in all) are not
// made, which saves about half of the bytes the phase pins. The phase's record when it pinned
// (the search's answer where nothing fails: the cap, stopped by the cap). When it failed, only
// its record ("first_try", no "largest"): the caller searches in a fresh process, since a failure
// may have poisoned this one, and a clean one must not leave the search a process that differs
// from the one it always had. Nothing (search here, as always) when not asked: the time is up,
// or the host has less than the cap available now (the search then stops where the host does).
std::optional<nlohmann::json> cap_at_once(const Limits& l, Devices& devices) {
    if (past(l)) return std::nullopt;
    if (const auto allowed = host_allows(l); allowed && l.cap > *allowed) return std::nullopt;
    Pin p = pin(l, l.cap, devices);
    nlohmann::json out = {{"first_try", p.to_json()}};
    if (!p.ok()) return out;
    out["largest"] = l.cap;
    out["stopped_by"] = budget_stop::cap;
    out["tried"] = nlohmann::json::array({p.to_json()});
    return out;
}

nlohmann::json readings_of(const ProbeSet& probes, const char* label, SteadyClock::time_point start) {
    const Snapshot s = immediate_snapshot(probes, label, start);
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [key, reading] : s.readings) j[key] = reading;
    return j;
}

nlohmann::json held(const Limits& l, Devices& devices, const Nvml* nvml, SteadyClock::time_point start) {
    nlohmann::json out, chunks = nlohmann::json::array();
    const ProbeSet probes = all_device_probes(nvml);
    DeviceContext& context = *devices.contexts.front();
    out["device_free_before"] = context.mem_info().free;
    out["probes_before"] = readings_of(probes, "before", start);
    std::vector<std::unique_ptr<HostBuffer>> kept;
    std::uint64_t total = 0;
    std::string stopped_by, reason;
    bool failed_call = false;
    while (true) {
        if (total + l.chunk > l.cap) {
            stopped_by = budget_stop::cap;
            break;
        }
        if (past(l)) {
            stopped_by = budget_stop::time_limit;
            break;
        }
        if (const auto allowed = host_allows(l); allowed && l.chunk > *allowed) {
            stopped_by = budget_stop::host_available;
            break;
        }
        Pin p = pin(l, l.chunk, devices);
        nlohmann::json record = p.to_json();
        if (!p.ok()) {
            chunks.push_back(record);
            stopped_by = stop_of(p);
            reason = reason_of(p);
            failed_call = !p.error.empty();
            break;
        }
        kept.push_back(std::move(p.buffer));
        total += l.chunk;
        record["device_free"] = context.mem_info().free;
        chunks.push_back(record);
    }
    out["held"] = total;
    out["stopped_by"] = stopped_by;
    if (!reason.empty()) out["reason"] = reason;
    out["chunks"] = chunks;
    out["probes_at_total"] = readings_of(probes, "at_total", start);
    kept.clear();
    devices.synchronize();
    out["device_free_after_release"] = context.mem_info().free;
    if (failed_call) out["failure_check"] = failure_check(l, devices);
    return out;
}

}  // namespace

nlohmann::json budget_phase(const nlohmann::json& request, const Nvml* nvml) {
    const auto start = SteadyClock::now();
    Limits l;
    std::string why;
    const auto api = parse_api_variant(request.at("family").get<std::string>(), &why);
    if (!api) throw InputError("budget: " + why);
    l.api = *api;
    l.cap = request.at("cap").get<std::uint64_t>();
    l.chunk = request.at("chunk").get<std::uint64_t>();
    l.keep_free = request.at("keep_free").get<std::uint64_t>();
    l.small = request.at("small_bytes").get<std::uint64_t>();
    l.deadline = start + std::chrono::milliseconds(request.at("time_limit_ms").get<std::int64_t>());
    if (l.chunk == 0 || l.cap < l.chunk) throw InputError("budget: the chunk must be from 1 byte to the cap");
    Devices devices = open_devices(1, true);
    const std::string phase = request.at("phase").get<std::string>();
    if (phase != "single" && phase != "held") throw InputError("budget: unknown phase '" + phase + "'");
    std::optional<nlohmann::json> first;
    if (phase == "single" && request.value("cap_first", false)) first = cap_at_once(l, devices);
    nlohmann::json out = first               ? *std::move(first)
                         : phase == "single" ? single(l, devices)
                                             : held(l, devices, nvml, start);
    out["phase"] = phase;
    out["family"] = to_string(l.api);
    out["wall_ms"] = ms_between(start, SteadyClock::now());
    return out;
}

}  // namespace pinbench
