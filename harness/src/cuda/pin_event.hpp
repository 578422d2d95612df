// One line of a trace's events file: what the injection library (harness/src/cuda/
// trace_injection.cpp) writes for each host-pinning call of the traced program, and what
// `pinbench trace` reads back. Both sides use these functions, so the field names live here only.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace pinbench::trace {

// A process of the traced program loaded the injection (or failed to subscribe).
struct InjectionStart {
    std::uint32_t pid = 0;
    std::int64_t t_ns = 0;
    std::string cupti;  // the CUPTI library loaded; empty when none could be
    std::string error;  // why tracing is off in this process; empty when it is on
};

struct PinCall {
    std::string api;
    std::uint32_t pid = 0;
    std::uint64_t tid = 0;
    std::int64_t t_ns = 0;         // steady clock at entry (the same clock as the sampler's)
    std::int64_t duration_ns = 0;  // entry to exit, as the callbacks see it
    std::int64_t callback_ns = 0;  // the tracer's own work in the exit callback (all but its write)
    std::uint64_t bytes = 0;       // asked for (0 for a release)
    std::uint64_t flags = 0;
    std::uint64_t address = 0;  // host pointer, allocation handle or device pointer the call made or takes
    std::uint64_t pool = 0;     // the memory pool of a pool call
    std::optional<std::uint64_t> pool_reserved;  // the pool's reserved bytes after the call
    int device = -1;       // the device of the calling thread's current context; -1: none
    std::string location;  // cuMemCreate / pools: "host", "host_numa:N", "host_numa_current"
    int result = 0;        // CUresult
    std::string result_name;
    std::vector<std::string> stack;  // innermost first; empty unless asked for
};

nlohmann::json to_json_line(const InjectionStart& s);
nlohmann::json to_json_line(const PinCall& c);

// A parsed events file: every start and call, in file order; lines that do not parse (a
// process killed mid-write) are counted, not fatal.
struct EventLog {
    std::vector<InjectionStart> starts;
    std::vector<PinCall> calls;
    int unreadable_lines = 0;
};
EventLog parse_event_lines(const std::string& text);

}  // namespace pinbench::trace
