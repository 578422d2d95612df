#include "driver.hpp"

#include <chrono>
#include <thread>

#include "api_callbacks.hpp"
#include "memory_cgroup.hpp"

namespace pinbench::driver_double {

Driver::Driver() : script(load_script()), state(script) {
    for (int d = 0; d < max_devices; ++d) contexts[d].device = d;
}

// The driver frees a process's memory when it exits; so does the double (and the kernel gives the
// group back what the process pinned).
Driver::~Driver() {
    if (!script.memory_cgroup.empty()) {
        if (const std::uint64_t host = host_bytes(); host > 0) cgroup_uncharge(script.memory_cgroup, host);
    }
    state.leave();
}

CUresult Driver::scripted(const char* entry, std::uint64_t bytes) {
    const auto it = script.failures.find(entry);
    if (it == script.failures.end()) return CUDA_SUCCESS;
    const Failure& f = it->second;
    if (f.above_bytes && bytes > *f.above_bytes) return static_cast<CUresult>(f.error);
    if (const auto index = script.counted_index(entry)) {
        if (state.count_call(*index) == *f.nth_call) return static_cast<CUresult>(f.error);
    }
    return CUDA_SUCCESS;
}

std::uint64_t Driver::host_bytes() const {
    std::uint64_t total = 0;
    for (const auto& [start, range] : ranges) {
        if (range.kind == RangeKind::pinned_host || range.kind == RangeKind::registered_host)
            total += range.bytes;
    }
    return total;
}

std::uint64_t Driver::pinned_bytes() const {
    std::uint64_t total = 0;
    for (const auto& [start, range] : ranges) {
        if ((range.kind == RangeKind::pinned_host || range.kind == RangeKind::registered_host) &&
            range.pinned) {
            total += range.bytes;
        }
    }
    return total;
}

CUresult Driver::scripted_pin(const char* entry, std::uint64_t bytes, bool* pinned) {
    *pinned = true;
    if (script.pin_delay_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(script.pin_delay_ms));
    if (poisoned) return CUDA_ERROR_OUT_OF_MEMORY;
    CUresult r = scripted(entry, bytes);
    std::uint64_t held = 0;
    {
        const std::lock_guard lock(mutex);
        held = pinned_bytes();
    }
    if (r == CUDA_SUCCESS && script.pin_limit && held + bytes > *script.pin_limit)
        r = CUDA_ERROR_OUT_OF_MEMORY;
    if (r != CUDA_SUCCESS) {
        poisoned = script.poison_after_failure;
        return r;
    }
    if (const auto it = script.fallback_above.find(entry); it != script.fallback_above.end()) {
        *pinned = held + bytes <= it->second;
    }
    if (!script.memory_cgroup.empty()) {
        if (script.neighbour_grows > 0 &&
            state.count_call(Script::pin_call_counter) == script.neighbour_grows_at) {
            cgroup_grow(script.memory_cgroup, script.neighbour_grows);
        }
        std::uint64_t holds = 0;
        {
            const std::lock_guard lock(mutex);
            holds = host_bytes();
        }
        cgroup_charge(script.memory_cgroup, bytes, holds);  // above the group's limit: killed here
    }
    return CUDA_SUCCESS;
}

CUresult Driver::inject() {
    std::call_once(injection_once, [this] { injection_result = load_injection(); });
    return injection_result;
}

bool Driver::attach_cupti(const CuptiHook& hook) {
    const std::lock_guard lock(cupti_mutex);
    if (hook.dispatch == nullptr) {
        if (cupti.subscriber == hook.subscriber) cupti = {};
        return true;
    }
    if (cupti.dispatch != nullptr) return false;
    cupti = hook;
    return true;
}

CuptiHook Driver::cupti_hook() {
    const std::lock_guard lock(cupti_mutex);
    return cupti;
}

std::optional<int> Driver::current_device() const {
    const Context* c = current_context();
    if (c == nullptr) return std::nullopt;
    return c->device;
}

void Driver::add_range(std::uintptr_t start, const Range& range) {
    const std::lock_guard lock(mutex);
    ranges[start] = range;
}

const Range* Driver::range_of(std::uintptr_t p, std::uint64_t bytes) const {
    auto it = ranges.upper_bound(p);
    if (it == ranges.begin()) return nullptr;
    --it;
    const std::uint64_t end = it->first + it->second.bytes;
    if (p + bytes > end || p < it->first) return nullptr;
    return &it->second;
}

std::optional<Range> Driver::remove_range(std::uintptr_t p, RangeKind kind) {
    std::optional<Range> out;
    {
        const std::lock_guard lock(mutex);
        const auto it = ranges.find(p);
        if (it == ranges.end() || it->second.kind != kind) return std::nullopt;
        out = it->second;
        ranges.erase(it);
    }
    state.release(out->device, out->charged);
    if (!script.memory_cgroup.empty() &&
        (kind == RangeKind::pinned_host || kind == RangeKind::registered_host)) {
        cgroup_uncharge(script.memory_cgroup, out->bytes);
    }
    return out;
}

Driver& driver() {
    static Driver instance;
    return instance;
}

Context*& current_context() {
    thread_local Context* current = nullptr;
    return current;
}

}  // namespace pinbench::driver_double
