#include "trace/trace_command.hpp"

#include <filesystem>
#include <memory>
#include <ostream>
#include <sstream>

#include "pinbench/cuda/nvml.hpp"
#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/interrupt.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/platform/utf8.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"
#include "pinbench/vocabulary/units.hpp"
#include "platform/random_token.hpp"
#include "platform/temp_directory.hpp"
#include "run/environment.hpp"
#include "run/settle.hpp"
#include "run/timestamp.hpp"
#include "trace/device_sampler.hpp"

namespace pinbench::trace {
namespace {

// A scratch file removed when the trace is built (or the run ends any other way).
class ScratchFile {
public:
    explicit ScratchFile(const std::string& stem)
        : path_(utf8_of(path_from_utf8(temp_directory()) /
                        path_from_utf8(stem + "-" + random_hex() + ".jsonl"))) {}
    ~ScratchFile() {
        std::error_code ignored;
        std::filesystem::remove(path_from_utf8(path_), ignored);
    }
    ScratchFile(const ScratchFile&) = delete;
    ScratchFile& operator=(const ScratchFile&) = delete;
    const std::string& path() const { return path_; }
    // Empty when nothing was written (the program never made the file).
    std::string read() const {
        std::error_code ignored;
        return std::filesystem::exists(path_from_utf8(path_), ignored) ? read_file(path_) : std::string();
    }

private:
    std::string path_;
};

// The program's notes: JSON objects, one per line, merged in order (a later key wins).
nlohmann::json read_notes(const std::string& text) {
    nlohmann::json notes = nlohmann::json::object();
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.empty()) continue;
        const auto j = nlohmann::json::parse(line, nullptr, false);
        if (j.is_object()) notes.update(j);
    }
    return notes;
}

TraceStatus status_of(const ProcessOutcome& o) {
    switch (o.kind) {
        case ProcessOutcome::Kind::exited:
            return {"exited", o.exit_code, 0,
                    o.exit_code == 0 ? "" : "the program exited with code " + std::to_string(o.exit_code)};
        case ProcessOutcome::Kind::signalled:
            return {"signalled", 0, o.signal, "the program ended on signal " + std::to_string(o.signal)};
        case ProcessOutcome::Kind::timed_out:
            return {"timed_out", 0, 0, "the program ran past the timeout and was killed"};
        case ProcessOutcome::Kind::interrupted:
            return {"interrupted", 0, stop_signal(),
                    "pinbench trace was stopped (" + stop_signal_name(stop_signal()) +
                        "); the program was killed"};
    }
    return {"exited", o.exit_code, 0, ""};
}

}  // namespace

int pass_through_exit_code(const TraceStatus& s) {
    if (s.kind == "exited") return s.exit_code;
    if (s.kind == "signalled" || s.kind == "interrupted") return exit_code_for_signal(s.signal);
    if (s.kind == "timed_out") return 124;
    return 127;  // not_started
}

std::string default_injection_library() {
#ifdef PINBENCH_TRACE_INJECTION_NAME
    return utf8_of(path_from_utf8(current_executable_path()).parent_path() / PINBENCH_TRACE_INJECTION_NAME);
#else
    return {};
#endif
}

nlohmann::json run_trace(const TraceOptions& options, const Nvml* nvml, const std::string& nvml_why,
                         TraceStatus* status) {
    if (options.command.empty()) {
        throw InputError("pinbench trace: no command given (pinbench trace -- PROGRAM ARGS...)");
    }
    Gathered g;
    g.command = options.command;
    g.working_directory = options.working_directory;
    g.stack_depth = options.stack_depth;
    g.interval_ms = static_cast<double>(options.interval.count());

    g.injection = options.injection.empty() ? default_injection_library() : options.injection;
    if (g.injection.empty()) {
        g.injection_why =
            "this pinbench has no injection library (it was built without the CUPTI headers: docs/trace.md "
            "says how they are found)";
    } else if (std::error_code ignored; !std::filesystem::exists(path_from_utf8(g.injection), ignored)) {
        g.injection_why = g.injection + " does not exist";
        g.injection.clear();
    }

    const ScratchFile events("pinbench-trace-events");
    const ScratchFile notes("pinbench-trace-notes");
    std::map<std::string, std::string> env = options.environment;
    env["PINBENCH_TRACE_EVENTS"] = events.path();
    env["PINBENCH_TRACE_NOTES"] = notes.path();
    env["PINBENCH_TRACE_STACK"] = std::to_string(options.stack_depth);
    if (!g.injection.empty()) {
        env["CUDA_INJECTION64_PATH"] = utf8_of(std::filesystem::absolute(path_from_utf8(g.injection)));
    }

    std::unique_ptr<DeviceSampler> sampler;
    g.sampled = nvml != nullptr;
    g.sampling_why = nvml != nullptr ? "" : nvml_why;
    if (nvml != nullptr) sampler = std::make_unique<DeviceSampler>(*nvml, options.interval);

    g.started_at = utc_now();
    g.start_ns = steady_ns(SteadyClock::now());
    SubprocessOptions how;
    how.inherit_stdio = true;
    how.working_directory = options.working_directory;
    const auto timeout = options.timeout.count() > 0 ? options.timeout : std::chrono::hours(24 * 30);
    try {
        // Tied: a tracer killed outright (SIGKILL) takes the program and its GPU memory with it.
        Subprocess program(tied_command(options.command), env, how);
        g.root_pid = program.pid();
        const ProcessOutcome outcome = program.wait(timeout);
        g.status = status_of(outcome);
        g.wall_ms = outcome.wall_ms;
    } catch (const SystemError& e) {
        g.status = {"not_started", 0, 0, e.what()};
    }
    g.end_ns = steady_ns(SteadyClock::now());
    if (sampler) g.samples = sampler->finish();
    // Only now: describing the device makes a CUDA context in this process (cudaDeviceGetLimit),
    // which would sit beside the program as a neighbour of 500 MiB for the whole trace.
    g.environment = collect_environment(nvml, nvml_why, 1);
    g.events = parse_event_lines(events.read());
    g.notes = read_notes(notes.read());
    *status = g.status;
    return build_trace(g);
}

int trace_main(const TraceOptions& options, const std::string& out_path, std::ostream& err) {
    std::string nvml_why;
    const std::unique_ptr<Nvml> nvml = Nvml::open(&nvml_why);
    const StopOnSignals stop;  // Ctrl-C: the program is killed, the trace so far is still written
    TraceStatus status;
    const nlohmann::json trace = run_trace(options, nvml.get(), nvml_why, &status);
    write_file_atomically(out_path, trace.dump(1) + "\n");

    const auto& pinned = trace["pinned"];
    const auto& tracing = trace["tracing"];
    err << "pinbench trace: " << trace["calls"].size() << " pinning calls, peak "
        << size_label(pinned["peak_bytes"].get<std::uint64_t>()) << " pinned";
    for (const auto& d : trace["cost_at_peak"]["devices"]) {
        if (d["cost_bytes"].is_number()) {
            err << "; GPU " << d["nvml_index"] << " cost at the peak " << d["cost_bytes"].get<std::int64_t>()
                << " B";
        }
    }
    err << "; trace written to " << terminal_text(out_path) << "\n";
    if (tracing["state"] != "on") {
        // The message may quote what the traced program's processes wrote (their events file).
        err << "pinbench trace: tracing " << terminal_text(tracing["state"].get<std::string>()) << ": "
            << terminal_text(tracing["message"].get<std::string>()) << "\n";
    }
    if (!status.message.empty()) err << "pinbench trace: " << terminal_text(status.message) << "\n";
    return pass_through_exit_code(status);
}

}  // namespace pinbench::trace
