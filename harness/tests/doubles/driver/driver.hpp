// The CUDA side of the double in one process: its script, the shared device state, and what
// this process holds (contexts, the ranges the device can reach, events, modules). A driver is
// process-wide by nature; this is its one instance, made on the first call.
#pragma once

#include <cuda.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>

#include "../cupti/cupti_channel.hpp"
#include "device_state.hpp"
#include "script.hpp"

namespace pinbench::driver_double {

// What a range the device can reach is, so each is freed only through its own API.
enum class RangeKind { device, pinned_host, registered_host, vmm_mapping, pool };

struct Range {
    std::uint64_t bytes = 0;
    int device = 0;
    std::uint64_t charged = 0;  // device memory it costs, given back when it goes
    RangeKind kind = RangeKind::device;
    void* owner = nullptr;  // the pool a pool allocation came from
    unsigned flags = 0;     // the pinning call's flags (cuMemHostGetFlags)
    bool pinned = true;     // false: a scripted silent fallback (fallback_above)
};

struct Context {
    int device = 0;
    int primary_retains = 0;
};

struct Event {
    std::optional<std::chrono::steady_clock::time_point> recorded;
};

struct Module {
    std::string ptx;
};

// The harness kernels the double knows by entry name (kernels.cpp does their effect).
enum class KernelEffect { none, checksum, unknown };

struct Function {
    std::string name;
    KernelEffect effect = KernelEffect::none;
};

// The CUPTI double's subscriber, when one is attached (api_callbacks.hpp).
struct CuptiHook {
    PinbenchDoubleCuptiDispatch dispatch = nullptr;
    void* subscriber = nullptr;
};

struct Driver {
    Driver();
    ~Driver();

    Script script;
    DeviceState state;
    std::mutex mutex;  // the maps below
    bool initialized = false;
    Context contexts[max_devices];
    std::map<std::uintptr_t, Range> ranges;  // by start address
    std::once_flag injection_once;
    CUresult injection_result = CUDA_SUCCESS;
    std::mutex cupti_mutex;  // cupti
    CuptiHook cupti;
    std::atomic<std::uint32_t> correlation_ids{0};

    // CUDA_SUCCESS, or the error the script gives this call of `entry` (asking `bytes`).
    CUresult scripted(const char* entry, std::uint64_t bytes = 0);
    // A host-pinning call of `entry` asking `bytes`: the script's failures, pin_limit and
    // poison_after_failure; *pinned false when fallback_above makes it a silent fallback.
    CUresult scripted_pin(const char* entry, std::uint64_t bytes, bool* pinned);
    // Host bytes this process holds pinned (ranges of the pinned and registered kinds, pinned).
    std::uint64_t pinned_bytes() const;
    // Host bytes of every pinning call this process holds, a silent fallback's too (each was
    // charged to the script's memory_cgroup). The caller holds `mutex`.
    std::uint64_t host_bytes() const;
    bool poisoned = false;  // a pinning call failed under poison_after_failure
    // CUDA_INJECTION64_PATH, loaded and initialised at the first cuInit only (load_injection).
    CUresult inject();
    // Attaches the CUPTI double's subscriber; false when another is attached. A null dispatch
    // detaches `hook.subscriber`.
    bool attach_cupti(const CuptiHook& hook);
    CuptiHook cupti_hook();
    std::uint32_t next_correlation_id() { return ++correlation_ids; }
    // The current context's device, or nullopt (CUDA_ERROR_INVALID_CONTEXT for the caller).
    std::optional<int> current_device() const;
    // Takes device memory for a range; false when the device has not that much free.
    bool charge(int device, std::uint64_t bytes) { return state.charge(device, bytes); }
    // Registers [start, start + bytes) (already charged) and finds it again.
    void add_range(std::uintptr_t start, const Range& range);
    // The range holding [p, p + bytes), or nullptr.
    const Range* range_of(std::uintptr_t p, std::uint64_t bytes) const;
    // Removes the range starting at p when it is of `kind`, giving back its device memory.
    std::optional<Range> remove_range(std::uintptr_t p, RangeKind kind);
};

Driver& driver();

// Unified addressing: a device address of the double is the host address of the same bytes.
inline void* host_pointer(CUdeviceptr p) {
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(p));  // NOLINT(performance-no-int-to-ptr)
}
inline CUdeviceptr device_address(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }
// Thread's current context (cuCtxSetCurrent is per thread).
Context*& current_context();

// Anonymous memory that backs every allocation (device memory included: kernels run on the host).
void* map_memory(std::uint64_t bytes);
void unmap_memory(void* p, std::uint64_t bytes);

// The VMM entry points' memory (cuda_vmm_exports.cpp): physical memory, and the reserved address
// ranges it is mapped into, mapped without access until made accessible.
struct PhysicalMemory;
PhysicalMemory* create_physical(std::uint64_t bytes);  // nullptr: none
void release_physical(PhysicalMemory* memory);
void* reserve_addresses(std::uint64_t bytes);  // nullptr: none
bool free_addresses(void* start, std::uint64_t bytes);
bool map_physical(void* at, std::uint64_t bytes, std::uint64_t offset, PhysicalMemory* memory);
bool make_accessible(void* at, std::uint64_t bytes);
bool unmap_physical(void* at, std::uint64_t bytes);

// This library's export `name`, or nullptr (own_exports_<platform>.cpp; for cuGetProcAddress).
void* own_export(const char* name);

// kernels.cpp
KernelEffect effect_of(const std::string& entry_name);
CUresult run_kernel(const Function& f, void** params);

}  // namespace pinbench::driver_double
