// The driver entry points `pinbench trace` records (docs/trace.md), by the names CUPTI reports,
// and what each does to the host memory held: its family, its effect, and the store's API
// variants that predict a family's device cost. One table read by the timeline (trace/), the
// metric catalog (results/, which exports it to pinreport) and the tests. Plain strings, no CUDA
// headers; it sits in the CUDA core beside the injection library (trace_injection.cpp), below
// both stages that read it.
#pragma once

#include <string>
#include <vector>

// The list, once: kTracedApis below spells each name, and the injection library its CUPTI
// callback id (CUPTI_DRIVER_TRACE_CBID_<name>, trace_injection.cpp), so the two cannot drift.
// An X-macro because a CUPTI id is a token, not a string: only the preprocessor makes both.
#define PINBENCH_TRACED_APIS(X)     \
    X(cuMemHostAlloc)               \
    X(cuMemAllocHost_v2)            \
    X(cuMemHostRegister)            \
    X(cuMemHostRegister_v2)         \
    X(cuMemHostUnregister)          \
    X(cuMemFreeHost)                \
    X(cuMemCreate)                  \
    X(cuMemRelease)                 \
    X(cuMemPoolCreate)              \
    X(cuMemPoolDestroy)             \
    X(cuMemPoolTrimTo)              \
    X(cuMemAllocFromPoolAsync)      \
    X(cuMemAllocFromPoolAsync_ptsz) \
    X(cuMemFreeAsync)               \
    X(cuMemFreeAsync_ptsz)

namespace pinbench::trace {

inline constexpr const char* kTracedApis[] = {
#define PINBENCH_TRACED_API_NAME(name) #name,
    PINBENCH_TRACED_APIS(PINBENCH_TRACED_API_NAME)
#undef PINBENCH_TRACED_API_NAME
};

// The family a call belongs to, as the timeline groups them: "host_alloc" (cuMemHostAlloc,
// cuMemAllocHost), "host_register", "vmm_host" (cuMemCreate with a host location), "pool_host"
// (host-located memory pools, counted by their reserved bytes). Empty: not a traced API.
std::string api_family(const std::string& api);

// What a call of `api` does to the bytes held: acquire (allocates or registers host memory),
// release (frees or unregisters what an acquire gave), pool_reserved (a host pool's call, after
// which the pool's reserved bytes are what it holds), or none of these.
enum class ApiEffect { none, acquire, release, pool_reserved };
ApiEffect effect_of(const std::string& api);
// The effect's name in the catalog: "acquire", "release", "pool_reserved", "" for none.
std::string api_effect(const std::string& api);

// The store's API variants (pinbench/vocabulary/api_variant.hpp spellings) whose measurements predict a
// family's device cost, preferred first: how `pinreport trace` picks the fit for a traced call.
std::vector<std::string> family_api_variants(const std::string& family);

}  // namespace pinbench::trace
