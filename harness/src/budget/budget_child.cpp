#include "budget/budget_child.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "budget/budget_limits.hpp"
#include "pinbench/cuda/device.hpp"
#include "pinbench/cuda/host_buffer.hpp"
#include "pinbench/probes/platform_probes.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"
#include "pinbench/vocabulary/units.hpp"
#include "platform/memory_limits.hpp"
#include "run/measuring_devices.hpp"

namespace pinbench {
namespace {

// A group's OOM counters as the phase began (memory.events, memory.oom_control).
struct Watched {
    std::string events;
    std::string where;
    OomCounts at_start;
};

struct Limits {
    ApiVariant api;
    std::uint64_t cap = 0, chunk = 0, keep_free = 0, small = 0;
    SteadyClock::time_point deadline;
    MemorySources sources;
    bool wsl = false;
    std::vector<Watched> watched;
    std::uint64_t holding = 0;  // what the phase holds now, for the line before each request
};

bool past(const Limits& l) { return SteadyClock::now() >= l.deadline; }

// What the limits of this process let it ask for now beyond what it holds, in whole chunks: the
// smallest of each limit's room less its margin (budget/budget_limits.hpp), read afresh. `bytes`
// nothing: no limit could be read, the cap alone bounds the search.
struct Allowed {
    std::optional<std::uint64_t> bytes;
    std::string stop;                  // budget_stop of the limit that gives it
    std::string words;                 // that limit, in words, with its margin
    std::optional<MemoryLimit> limit;  // that limit, as read
};

Allowed allowed(const Limits& l) {
    const MemoryLimits read = read_memory_limits(l.sources);
    const Allowance a = allowance(read.limits, l.keep_free);
    Allowed out;
    if (!a.bytes) return out;
    out.bytes = *a.bytes / l.chunk * l.chunk;
    const MemoryLimit& by = read.limits[*a.by];
    out.stop = stop_for(by);
    out.limit = by;
    out.words = limit_words(by, l.wsl) + ", less " + format_bytes(margin_of(by, l.keep_free)) +
                (by.scope == LimitScope::shared ? " kept free" : " for the driver's own mappings");
    return out;
}

// The groups whose OOM counters the phase watches: every limit that has them.
std::vector<Watched> watch_groups(const MemorySources& sources) {
    std::vector<Watched> out;
    for (const MemoryLimit& m : read_memory_limits(sources).limits) {
        if (m.events.empty()) continue;
        if (std::any_of(out.begin(), out.end(), [&](const Watched& w) { return w.events == m.events; })) {
            continue;
        }
        if (const auto counts = read_oom_counts(m.events)) out.push_back({m.events, m.where, *counts});
    }
    return out;
}

// Why the phase must stop at once: a watched group's oom or oom_kill counter moved since it began
// (another process's memory may be running out too). Empty: none moved.
std::string oom_moved(const Limits& l) {
    for (const Watched& w : l.watched) {
        const auto now = read_oom_counts(w.events);
        if (!now) continue;
        if (now->oom != w.at_start.oom || now->oom_kill != w.at_start.oom_kill) {
            return "the OOM counters of cgroup " + terminal_text(w.where) +
                   " moved while this phase pinned (oom " + std::to_string(w.at_start.oom) + " to " +
                   std::to_string(now->oom) + ", oom_kill " + std::to_string(w.at_start.oom_kill) + " to " +
                   std::to_string(now->oom_kill) + "): stopped at once";
        }
    }
    return {};
}

void announce(const Limits& l, std::uint64_t bytes) {
    std::cerr << asking_line({current_process_id(), l.holding, bytes}) << std::endl;
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
    announce(l, bytes);
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

// A pin's record with what the limits allowed when it was asked for ("allowed": the bytes; the
// tests check no request exceeded it), where any limit was read.
nlohmann::json with_room(nlohmann::json record, const Allowed& room) {
    if (room.bytes) record["allowed"] = *room.bytes;
    return record;
}

nlohmann::json single(const Limits& l, Devices& devices) {
    nlohmann::json out, tried = nlohmann::json::array();
    std::uint64_t lo = 0, hi = 0;  // lo pinned; hi (when > 0) did not
    std::string stopped_by, reason;
    std::optional<Pin> first_failure;
    Allowed bound;  // the limit that bounded a request, when one did
    std::uint64_t size = std::min(l.chunk, l.cap);
    while (true) {
        if (past(l)) {
            stopped_by = budget_stop::time_limit;
            break;
        }
        if (std::string why = oom_moved(l); !why.empty()) {
            stopped_by = budget_stop::oom_event;
            reason = std::move(why);
            break;
        }
        bool host_bound = false;
        const Allowed room = allowed(l);
        if (room.bytes && size > *room.bytes) {
            bound = room;
            if (*room.bytes <= lo) {
                stopped_by = room.stop;
                reason = room.words;
                break;
            }
            size = *room.bytes;
            host_bound = true;
        }
        Pin p = pin(l, size, devices);
        tried.push_back(with_room(p.to_json(), room));
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
            stopped_by = bound.stop;
            reason = bound.words;
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
        if (std::string why = oom_moved(l); !why.empty()) {
            out["bisection_stopped_by"] = budget_stop::oom_event;
            out["bisection_reason"] = std::move(why);
            break;
        }
        // Never above what the limits allow now (a neighbour may have grown since the doubling).
        const Allowed room = allowed(l);
        if (room.bytes && mid > *room.bytes) {
            out["bisection_stopped_by"] = room.stop;
            out["bisection_reason"] = room.words;
            break;
        }
        Pin p = pin(l, mid, devices);
        tried.push_back(with_room(p.to_json(), room));
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
    if (bound.limit) out["limit"] = limit_json(*bound.limit, l.keep_free, l.wsl);
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
    if (past(l) || !oom_moved(l).empty()) return std::nullopt;
    const Allowed room = allowed(l);
    if (room.bytes && l.cap > *room.bytes) return std::nullopt;
    Pin p = pin(l, l.cap, devices);
    nlohmann::json out = {{"first_try", with_room(p.to_json(), room)}};
    if (!p.ok()) return out;
    out["largest"] = l.cap;
    out["stopped_by"] = budget_stop::cap;
    out["tried"] = nlohmann::json::array({out["first_try"]});
    return out;
}

nlohmann::json readings_of(const ProbeSet& probes, const char* label, SteadyClock::time_point start) {
    const Snapshot s = immediate_snapshot(probes, label, start);
    nlohmann::json j = nlohmann::json::object();
    for (const auto& [key, reading] : s.readings) j[key] = reading;
    return j;
}

nlohmann::json held(Limits& l, Devices& devices, const Nvml* nvml, SteadyClock::time_point start) {
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
        if (std::string why = oom_moved(l); !why.empty()) {
            stopped_by = budget_stop::oom_event;
            reason = std::move(why);
            break;
        }
        const Allowed room = allowed(l);
        if (room.bytes && l.chunk > *room.bytes) {
            stopped_by = room.stop;
            reason = room.words;
            out["limit"] = limit_json(*room.limit, l.keep_free, l.wsl);
            break;
        }
        Pin p = pin(l, l.chunk, devices);
        nlohmann::json record = with_room(p.to_json(), room);
        if (!p.ok()) {
            chunks.push_back(record);
            stopped_by = stop_of(p);
            reason = reason_of(p);
            failed_call = !p.error.empty();
            break;
        }
        kept.push_back(std::move(p.buffer));
        total += l.chunk;
        l.holding = total;
        record["device_free"] = context.mem_info().free;
        chunks.push_back(record);
    }
    out["held"] = total;
    out["stopped_by"] = stopped_by;
    if (!reason.empty()) out["reason"] = reason;
    out["chunks"] = chunks;
    out["probes_at_total"] = readings_of(probes, "at_total", start);
    kept.clear();
    l.holding = 0;
    devices.synchronize();
    out["device_free_after_release"] = context.mem_info().free;
    if (failed_call) out["failure_check"] = failure_check(l, devices);
    return out;
}

}  // namespace

std::string asking_line(const Asking& a) {
    return "pinbench budget child " + std::to_string(a.pid) + ": holding " + std::to_string(a.holding) +
           " B, asking for " + std::to_string(a.asking) + " B";
}

std::optional<Asking> last_asking(const std::string& output) {
    static const std::string head = "pinbench budget child ";
    const auto at = output.rfind(head);
    if (at == std::string::npos) return std::nullopt;
    // The three numbers after their words, in order.
    Asking a;
    std::uint64_t* fields[] = {&a.pid, &a.holding, &a.asking};
    const char* words[] = {"", ": holding ", " B, asking for "};
    std::size_t pos = at + head.size();
    for (std::size_t i = 0; i < 3; ++i) {
        const std::string word = words[i];
        if (output.compare(pos, word.size(), word) != 0) return std::nullopt;
        pos += word.size();
        const char* p = output.c_str() + pos;
        char* end = nullptr;
        *fields[i] = std::strtoull(p, &end, 10);
        if (end == p) return std::nullopt;
        pos = static_cast<std::size_t>(end - output.c_str());
    }
    return a;
}

nlohmann::json budget_phase(const nlohmann::json& request, const Nvml* nvml) {
    const auto start = SteadyClock::now();
    Limits l;
    std::string api_why;
    const auto api = parse_api_variant(request.at("family").get<std::string>(), &api_why);
    if (!api) throw InputError("budget: " + api_why);
    l.api = *api;
    l.cap = request.at("cap").get<std::uint64_t>();
    l.chunk = request.at("chunk").get<std::uint64_t>();
    l.keep_free = request.at("keep_free").get<std::uint64_t>();
    l.small = request.at("small_bytes").get<std::uint64_t>();
    l.deadline = start + std::chrono::milliseconds(request.at("time_limit_ms").get<std::int64_t>());
    if (l.chunk == 0 || l.cap < l.chunk) throw InputError("budget: the chunk must be from 1 byte to the cap");
    l.sources = memory_sources();
    l.sources.outer_jobs = outer_jobs_of(request.value("outer_jobs", nlohmann::json::array()));
    l.wsl = request.value("wsl", false);
    // If a group's memory runs out after all, the OOM killer takes this process, which holds the
    // pins, not the job beside it.
    std::string volunteer_why;
    const bool volunteered = volunteer_for_oom_killer(&volunteer_why);
    l.watched = watch_groups(l.sources);
    std::string why;
    if (cuda_device_count(&why) < 1) {
        const MemoryLimits limits = read_memory_limits(l.sources);
        if (const auto blocked = cuda_start_blocked_by(limits.limits, why)) {
            throw std::runtime_error(*blocked);
        }
    }
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
    out["oom_first"] = volunteered ? nlohmann::json(true) : nlohmann::json(volunteer_why);
    out["wall_ms"] = ms_between(start, SteadyClock::now());
    return out;
}

}  // namespace pinbench
