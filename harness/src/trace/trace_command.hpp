// `pinbench trace [options] -- COMMAND ARGS...` (docs/trace.md): runs the user's program with
// the injection library loaded by the CUDA driver (CUDA_INJECTION64_PATH), samples NVML from
// outside meanwhile, and builds the versioned trace: every host-pinning call, the pinned-bytes
// timeline, the peak and what was held then, the device-memory timeline and the device cost at
// the peak. The program's output passes through; its exit status is recorded.
#pragma once

#include <chrono>
#include <iosfwd>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "trace/trace_document.hpp"

namespace pinbench {
class Nvml;
}

namespace pinbench::trace {

struct TraceOptions {
    std::vector<std::string> command;
    std::string working_directory;
    std::map<std::string, std::string> environment;  // added to ours
    std::chrono::milliseconds timeout{0};            // 0: none
    std::chrono::milliseconds interval{20};          // NVML sampling
    int stack_depth = 0;                             // native frames per call; 0: none
    std::string injection;                           // the library; empty: the one built beside pinbench
};

// The exit code `pinbench trace` passes on: the program's own, 128+signal for a signal,
// 124 for a timeout (as timeout(1)), 127 when it could not start (as a shell).
int pass_through_exit_code(const TraceStatus& s);

// The default injection library: the one built beside this executable ("" when this build has none).
std::string default_injection_library();

// `pinbench trace`: runs and traces, writes the trace to `out_path` (atomically), prints a
// one-paragraph summary to `err` and returns the exit code to pass on.
int trace_main(const TraceOptions& options, const std::string& out_path, std::ostream& err);

// Runs and traces; `nvml` may be null (no device side, `why` in the trace).
nlohmann::json run_trace(const TraceOptions& options, const Nvml* nvml, const std::string& nvml_why,
                         TraceStatus* status);

}  // namespace pinbench::trace
