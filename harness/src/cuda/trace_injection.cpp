// The injection library of `pinbench trace` (docs/trace.md): the CUDA driver loads it into the
// traced program through CUDA_INJECTION64_PATH and calls InitializeInjection() once per process.
// It subscribes through CUPTI callbacks to the host-pinning entry points of the driver API, so it
// sees the runtime, PyTorch and static or dynamic cudart alike, and appends one JSON line per
// call to $PINBENCH_TRACE_EVENTS (cuda/pin_event.hpp). CUPTI is loaded at run time, so a
// machine without it gets a "start" event saying why instead of a driver that skips the library.
// The driver calls it makes itself go through the driver table (cuda/driver_api.hpp), so the
// library links no CUDA library either.
//
// State: one Tracer per process, made in InitializeInjection and handed to CUPTI as the
// callback's userdata; it lives until the process ends, because CUPTI may call back until then.
// cupti_common.h packs its records with MSVC's __pragma; mingw-w64's GCC spells it _Pragma.
#if defined(__MINGW32__) && !defined(__pragma)
#define __pragma(x) _Pragma(#x)  // NOLINT(bugprone-reserved-identifier,cert-dcl37-c,cert-dcl51-cpp)
#endif
#include <cupti.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_set>

#include "cuda/driver_api.hpp"
#include "cuda/pin_event.hpp"
#include "cuda/traced_apis.hpp"
#include "pinbench/platform/dynamic_library.hpp"
#include "pinbench/platform/utf8.hpp"
#include "platform/injection_platform.hpp"

#if defined(_WIN32)
#define PINBENCH_INJECTION_EXPORT extern "C" __declspec(dllexport)
#else
#define PINBENCH_INJECTION_EXPORT extern "C" __attribute__((visibility("default")))
#endif

namespace pinbench::trace {
namespace {

using SubscribeFn = CUptiResult(CUPTIAPI*)(CUpti_SubscriberHandle*, CUpti_CallbackFunc, void*);
using EnableCallbackFn = CUptiResult(CUPTIAPI*)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
                                                CUpti_CallbackId);
using ResultStringFn = CUptiResult(CUPTIAPI*)(CUptiResult, const char**);

std::int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(
               std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

int env_int(const char* name, int fallback) {
    const std::optional<std::string> v = environment_variable(name);
    return v && !v->empty() ? std::atoi(v->c_str()) : fallback;
}

std::string location_name(const CUmemLocation& l) {
    switch (l.type) {
        case CU_MEM_LOCATION_TYPE_HOST:
            return "host";
        case CU_MEM_LOCATION_TYPE_HOST_NUMA:
            return "host_numa:" + std::to_string(l.id);
        case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
            return "host_numa_current";
        default:
            return {};  // a device location: not host pinning
    }
}

// The caller's frames: the innermost ones belong to this library, CUPTI and the driver, and are
// dropped before `depth` frames are kept.
std::vector<std::string> program_stack(int depth) {
    std::vector<std::string> frames = native_stack(depth + 32);
    const auto ours = [](const std::string& f) {
        return f.rfind("libpinbench_trace_inject", 0) == 0 || f.rfind("libcupti", 0) == 0 ||
               f.rfind("libcuda.so", 0) == 0 || f.rfind("pinbench_trace_inject", 0) == 0 ||
               f.rfind("cupti", 0) == 0 || f.rfind("nvcuda", 0) == 0;
    };
    std::size_t first = 0;
    while (first < frames.size() && ours(frames[first])) ++first;
    frames.erase(frames.begin(), frames.begin() + static_cast<std::ptrdiff_t>(first));
    if (frames.size() > static_cast<std::size_t>(depth)) frames.resize(static_cast<std::size_t>(depth));
    return frames;
}

std::uint64_t pool_reserved(const cuda::DriverApi* driver, CUmemoryPool pool) {
    cuuint64_t reserved = 0;
    if (driver == nullptr || driver->mem_pool_get_attribute.fn == nullptr ||
        driver->mem_pool_get_attribute.fn(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved) !=
            CUDA_SUCCESS) {
        return 0;
    }
    return reserved;
}

class Tracer {
public:
    // The driver is in the process already (it is loading this library), so loading the table
    // opens the same library; cuInit is not called from here.
    Tracer(const std::string& events_path, int stack_depth)
        : file_(events_path), stack_depth_(stack_depth), driver_(cuda::DriverApi::load(nullptr)) {}

    bool file_ok() const { return file_.is_open(); }
    void write(const nlohmann::json& line) { file_.append_line(line.dump()); }

    // Called at API exit (CUPTI gives the parameters, the result and the entry time we kept).
    void on_exit(CUpti_CallbackId cbid, const CUpti_CallbackData& d, std::int64_t entered_ns) {
        const std::int64_t exit_entered = now_ns();
        PinCall c;
        c.api = d.functionName != nullptr ? d.functionName : "?";
        c.pid = current_process_id();
        c.tid = current_thread_id();
        c.t_ns = entered_ns;
        c.duration_ns = now_ns() - entered_ns;
        const auto result = *static_cast<const CUresult*>(d.functionReturnValue);
        c.result = static_cast<int>(result);
        c.result_name = driver_ != nullptr ? driver_->error_name(result) : "?";
        const bool ok = result == CUDA_SUCCESS;
        CUdevice device = -1;
        if (driver_ != nullptr && driver_->ctx_get_device.fn != nullptr &&
            driver_->ctx_get_device.fn(&device) == CUDA_SUCCESS) {
            c.device = static_cast<int>(device);
        }

        switch (cbid) {
            case CUPTI_DRIVER_TRACE_CBID_cuMemHostAlloc: {
                const auto* p = static_cast<const cuMemHostAlloc_params*>(d.functionParams);
                c.bytes = p->bytesize;
                c.flags = p->Flags;
                if (ok && p->pp != nullptr) c.address = reinterpret_cast<std::uintptr_t>(*p->pp);
                break;
            }
            case CUPTI_DRIVER_TRACE_CBID_cuMemAllocHost_v2: {
                const auto* p = static_cast<const cuMemAllocHost_v2_params*>(d.functionParams);
                c.bytes = p->bytesize;
                if (ok && p->pp != nullptr) c.address = reinterpret_cast<std::uintptr_t>(*p->pp);
                break;
            }
            case CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister:
            case CUPTI_DRIVER_TRACE_CBID_cuMemHostRegister_v2: {
                // The two share one layout (void* p, size_t bytesize, unsigned int Flags).
                const auto* p = static_cast<const cuMemHostRegister_v2_params*>(d.functionParams);
                c.bytes = p->bytesize;
                c.flags = p->Flags;
                c.address = reinterpret_cast<std::uintptr_t>(p->p);
                break;
            }
            case CUPTI_DRIVER_TRACE_CBID_cuMemHostUnregister:
                c.address = reinterpret_cast<std::uintptr_t>(
                    static_cast<const cuMemHostUnregister_params*>(d.functionParams)->p);
                break;
            case CUPTI_DRIVER_TRACE_CBID_cuMemFreeHost:
                c.address = reinterpret_cast<std::uintptr_t>(
                    static_cast<const cuMemFreeHost_params*>(d.functionParams)->p);
                break;
            case CUPTI_DRIVER_TRACE_CBID_cuMemCreate: {
                const auto* p = static_cast<const cuMemCreate_params*>(d.functionParams);
                if (p->prop == nullptr) return;
                c.location = location_name(p->prop->location);
                if (c.location.empty()) return;  // device memory
                c.bytes = p->size;
                c.flags = p->flags;
                if (ok && p->handle != nullptr) {
                    c.address = *p->handle;
                    remember(host_handles_, c.address);
                }
                break;
            }
            case CUPTI_DRIVER_TRACE_CBID_cuMemRelease:
                c.address = static_cast<const cuMemRelease_params*>(d.functionParams)->handle;
                if (!forget(host_handles_, c.address, ok)) return;
                break;
            case CUPTI_DRIVER_TRACE_CBID_cuMemPoolCreate: {
                const auto* p = static_cast<const cuMemPoolCreate_params*>(d.functionParams);
                if (p->poolProps == nullptr) return;
                c.location = location_name(p->poolProps->location);
                if (c.location.empty()) return;
                if (ok && p->pool != nullptr) {
                    c.pool = reinterpret_cast<std::uintptr_t>(*p->pool);
                    c.address = c.pool;
                    remember(host_pools_, c.pool);
                    c.pool_reserved = 0;
                }
                break;
            }
            case CUPTI_DRIVER_TRACE_CBID_cuMemPoolDestroy: {
                const auto pool = static_cast<const cuMemPoolDestroy_params*>(d.functionParams)->pool;
                c.pool = reinterpret_cast<std::uintptr_t>(pool);
                if (!forget(host_pools_, c.pool, ok)) return;
                c.address = c.pool;
                c.pool_reserved = 0;
                break;
            }
            case CUPTI_DRIVER_TRACE_CBID_cuMemPoolTrimTo: {
                const auto* p = static_cast<const cuMemPoolTrimTo_params*>(d.functionParams);
                c.pool = reinterpret_cast<std::uintptr_t>(p->pool);
                if (!known(host_pools_, c.pool)) return;
                c.bytes = p->minBytesToKeep;
                c.pool_reserved = pool_reserved(driver_.get(), p->pool);
                break;
            }
            case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync:
            case CUPTI_DRIVER_TRACE_CBID_cuMemAllocFromPoolAsync_ptsz: {
                const auto* p = static_cast<const cuMemAllocFromPoolAsync_params*>(d.functionParams);
                c.pool = reinterpret_cast<std::uintptr_t>(p->pool);
                if (!known(host_pools_, c.pool)) return;
                c.bytes = p->bytesize;
                if (ok && p->dptr != nullptr) {
                    c.address = *p->dptr;
                    remember(pool_pointers_, c.address);
                }
                c.pool_reserved = pool_reserved(driver_.get(), p->pool);
                break;
            }
            case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync:
            case CUPTI_DRIVER_TRACE_CBID_cuMemFreeAsync_ptsz: {
                c.address = static_cast<const cuMemFreeAsync_params*>(d.functionParams)->dptr;
                if (!forget(pool_pointers_, c.address, ok)) return;
                // The pool keeps what was freed reserved (until trimmed): there is no pool
                // argument, so the reserved figure comes with the next pool call.
                break;
            }
            default:
                return;
        }
        if (stack_depth_ > 0) c.stack = program_stack(stack_depth_);
        c.callback_ns = now_ns() - exit_entered;  // our own work on this call, short of the write
        write(to_json_line(c));
    }

private:
    using Set = std::unordered_set<std::uint64_t>;
    void remember(Set& s, std::uint64_t v) {
        const std::scoped_lock lock(mutex_);
        s.insert(v);
    }
    bool known(const Set& s, std::uint64_t v) {
        const std::scoped_lock lock(mutex_);
        return s.count(v) != 0;
    }
    // True when `v` was one of ours; a successful release forgets it.
    bool forget(Set& s, std::uint64_t v, bool released) {
        const std::scoped_lock lock(mutex_);
        const auto it = s.find(v);
        if (it == s.end()) return false;
        if (released) s.erase(it);
        return true;
    }

    EventFile file_;
    int stack_depth_;
    std::unique_ptr<cuda::DriverApi> driver_;  // nullptr: names and devices read "?"
    std::mutex mutex_;
    Set host_handles_, host_pools_, pool_pointers_;
};

constexpr CUpti_CallbackId kCallbacks[] = {
#define PINBENCH_TRACED_API_CBID(name) CUPTI_DRIVER_TRACE_CBID_##name,
    PINBENCH_TRACED_APIS(PINBENCH_TRACED_API_CBID)
#undef PINBENCH_TRACED_API_CBID
};

void CUPTIAPI on_callback(void* userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                          const void* data) {
    if (domain != CUPTI_CB_DOMAIN_DRIVER_API || data == nullptr) return;
    const auto& d = *static_cast<const CUpti_CallbackData*>(data);
    if (d.callbackSite == CUPTI_API_ENTER) {
        // correlationData: CUPTI's slot shared by one call's entry and exit callbacks.
        if (d.correlationData != nullptr) *d.correlationData = static_cast<std::uint64_t>(now_ns());
        return;
    }
    const std::int64_t entered =
        d.correlationData != nullptr ? static_cast<std::int64_t>(*d.correlationData) : now_ns();
    static_cast<Tracer*>(userdata)->on_exit(cbid, d, entered);
}

std::string cupti_error(ResultStringFn result_string, CUptiResult r) {
    const char* text = nullptr;
    if (result_string != nullptr && result_string(r, &text) == CUPTI_SUCCESS && text != nullptr) return text;
    return "CUptiResult " + std::to_string(static_cast<int>(r));
}

int initialize() {
    // A path in UTF-8 (pinbench/platform/utf8.hpp): on Windows from the wide environment, so a temporary
    // folder under C:\Users\José or 田中 is found as it is.
    const std::optional<std::string> events = environment_variable("PINBENCH_TRACE_EVENTS");
    if (!events || events->empty()) return 1;  // loaded outside pinbench trace: stay out of the way
    // Deliberately never freed: CUPTI may call back until the process ends.
    auto* tracer = new Tracer(*events, env_int("PINBENCH_TRACE_STACK", 0));
    InjectionStart start{current_process_id(), now_ns(), {}, {}};
    if (!tracer->file_ok()) return 1;

    std::string why;
    // Never unloaded: it lives as long as the tracer.
    DynamicLibrary* cupti = DynamicLibrary::open(cupti_candidates(), &why).release();
    if (cupti == nullptr) {
        start.error =
            "CUPTI could not be loaded (" + why + "); set PINBENCH_CUPTI_LIBRARY to the toolkit's libcupti";
        tracer->write(to_json_line(start));
        return 1;
    }
    start.cupti = cupti->loaded_name();
    const auto subscribe = reinterpret_cast<SubscribeFn>(cupti->symbol("cuptiSubscribe"));
    const auto enable = reinterpret_cast<EnableCallbackFn>(cupti->symbol("cuptiEnableCallback"));
    const auto result_string = reinterpret_cast<ResultStringFn>(cupti->symbol("cuptiGetResultString"));
    if (subscribe == nullptr || enable == nullptr) {
        start.error = cupti->loaded_name() + " lacks cuptiSubscribe / cuptiEnableCallback";
        tracer->write(to_json_line(start));
        return 1;
    }
    CUpti_SubscriberHandle subscriber{};
    if (const CUptiResult r = subscribe(&subscriber, on_callback, tracer); r != CUPTI_SUCCESS) {
        start.error = r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                          ? "another profiler or tracer already holds the CUPTI subscription (" +
                                cupti_error(result_string, r) + "); run without it to trace pinning"
                          : "cuptiSubscribe failed: " + cupti_error(result_string, r);
        tracer->write(to_json_line(start));
        return 1;
    }
    for (const CUpti_CallbackId cbid : kCallbacks) {
        if (const CUptiResult r = enable(1, subscriber, CUPTI_CB_DOMAIN_DRIVER_API, cbid);
            r != CUPTI_SUCCESS) {
            start.error =
                "cuptiEnableCallback(" + std::to_string(cbid) + ") failed: " + cupti_error(result_string, r);
            break;
        }
    }
    tracer->write(to_json_line(start));
    return 1;
}

}  // namespace
}  // namespace pinbench::trace

// The entry point the CUDA driver looks up in a CUDA_INJECTION64_PATH library.
PINBENCH_INJECTION_EXPORT int InitializeInjection(void) { return pinbench::trace::initialize(); }
