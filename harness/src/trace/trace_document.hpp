// The trace file (docs/trace.md, schema "pinbench-trace" version 1), built from what
// `pinbench trace` gathered: pure, so it is CPU-tested from committed events and samples.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cuda/pin_event.hpp"
#include "trace/device_samples.hpp"

namespace pinbench::trace {

inline constexpr const char* kTraceSchema = "pinbench-trace";
inline constexpr int kTraceVersion = 1;

// The outcome of the traced program as a trace records it.
struct TraceStatus {
    std::string kind;  // "exited", "signalled", "timed_out", "interrupted", "not_started"
    int exit_code = 0;
    int signal = 0;
    std::string message;
};

struct Gathered {
    std::vector<std::string> command;
    std::string working_directory;
    std::string started_at;  // UTC
    TraceStatus status;
    double wall_ms = 0;
    std::int64_t start_ns = 0;  // steady clock when the program started (times are relative to it)
    std::int64_t end_ns = 0;
    std::uint32_t root_pid = 0;
    std::string injection;      // the library path; empty: none available
    std::string injection_why;  // why there is none
    int stack_depth = 0;
    EventLog events;
    bool sampled = false;  // NVML was available
    std::string sampling_why;
    double interval_ms = 0;
    std::vector<DeviceSample> samples;
    nlohmann::json environment = nlohmann::json::object();
    nlohmann::json notes = nlohmann::json::object();  // what the program wrote to $PINBENCH_TRACE_NOTES
};

// "on" (every traced process subscribed), "partial", "unavailable" (CUPTI missing or taken),
// "not_loaded" (no process loaded the injection: the program never initialised CUDA, or this
// build has no injection library), with a one-line message.
struct TracingState {
    std::string state;
    std::string message;
};
TracingState tracing_state(const Gathered& g);

// The trace document, valid under trace.schema.json; throws InputError naming the field when the
// events would give one outside its bounds.
nlohmann::json build_trace(const Gathered& g);

}  // namespace pinbench::trace
