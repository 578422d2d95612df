// The ways a host buffer can be obtained. Pageable memory is the control.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench {

enum class ApiFamily {
    pageable,       // malloc + touch every page: the control
    malloc_host,    // cudaMallocHost
    host_alloc,     // cudaHostAlloc(flags)
    host_register,  // page-aligned malloc, touched, then cudaHostRegister(flags)
};

// Flags as bits, independent of the CUDA headers' values (the core maps them).
enum ApiFlag : unsigned {
    flag_none = 0,
    flag_portable = 1u << 0,
    flag_mapped = 1u << 1,
    flag_write_combined = 1u << 2,  // cudaHostAlloc only
};

struct ApiVariant {
    ApiFamily family = ApiFamily::pageable;
    unsigned flags = flag_none;

    friend bool operator==(const ApiVariant&, const ApiVariant&) = default;
};

// Canonical spelling, used in scenario files, ids and results:
//   pageable, cudaMallocHost, cudaHostAlloc, cudaHostAlloc:portable,
//   cudaHostAlloc:portable+mapped+write_combined, cudaHostRegister:mapped ...
// Flags are written in the fixed order portable, mapped, write_combined.
std::string to_string(ApiVariant api);

// Parses the canonical spelling (flags in any order, each at most once). On failure returns
// nullopt and sets *why to a one-line reason (unknown api, unknown flag, flag not valid for
// this api, duplicate flag).
std::optional<ApiVariant> parse_api_variant(std::string_view text, std::string* why);

// Every variant the harness implements, in a stable order (used by `pinbench doctor`,
// GPU tests and documentation).
std::vector<ApiVariant> all_api_variants();

// True when the variant yields memory the GPU can DMA from without staging.
inline bool is_pinned(ApiVariant api) { return api.family != ApiFamily::pageable; }

// True when the buffer has a device pointer (mapped zero-copy).
bool has_device_pointer(ApiVariant api);

}  // namespace pinbench
