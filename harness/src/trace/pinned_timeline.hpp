// What a traced program held pinned over time, from its calls (cuda/pin_event.hpp): the
// timeline, the peak and what was held at the peak, per API family, device and call site.
// Pure functions over the event log: CPU-tested on committed real traces.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cuda/pin_event.hpp"
#include "cuda/traced_apis.hpp"

namespace pinbench::trace {

// The first frame of a call's stack outside the CUDA driver, CUPTI, the runtime and the
// injection itself: where the program asked. "unknown" without a stack.
std::string call_site(const std::vector<std::string>& stack);

struct Holding {  // one live pinned allocation at the peak
    std::string api;
    std::uint64_t bytes = 0;
    std::uint32_t pid = 0;
    int device = -1;
    std::string site;
};

struct TimelinePoint {
    std::int64_t t_ns = 0;  // after this call
    std::uint64_t held = 0;
    std::map<std::string, std::uint64_t> held_by_family;
};

struct ApiTotals {
    int calls = 0;
    int failed = 0;
    std::uint64_t bytes_asked = 0;  // over successful allocating calls
};

struct PinnedTimeline {
    std::vector<TimelinePoint> points;
    std::uint64_t peak_held = 0;
    std::int64_t peak_t_ns = 0;               // when the peak was first reached
    std::int64_t peak_end_ns = 0;             // when held next changed (0: never, held until the end)
    std::vector<Holding> at_peak;             // what was held then, largest first
    std::map<std::string, ApiTotals> by_api;  // by entry point name
    std::map<std::string, std::uint64_t> peak_by_family;
    std::map<int, std::uint64_t> peak_by_device;  // by the caller's current device (-1: none)
    std::map<std::string, std::uint64_t> peak_by_site;
    std::map<std::uint32_t, std::uint64_t> peak_by_pid;
    int unmatched_releases = 0;  // a free of something not seen allocated (traced too late)
};

PinnedTimeline build_timeline(const std::vector<PinCall>& calls);

}  // namespace pinbench::trace
