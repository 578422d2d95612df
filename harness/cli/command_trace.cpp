// `pinbench trace [-o TRACE] -- PROGRAM ARGS`: a program's host pinning, traced (docs/trace.md).
#include <chrono>
#include <iostream>
#include <string>

#include "command.hpp"
#include "output_path.hpp"
#include "pinbench/scenario/scenario.hpp"
#include "trace/trace_command.hpp"
#include "validators.hpp"

namespace pinbench::cli {
namespace {

class TraceCommand : public Command {
public:
    explicit TraceCommand(CLI::App& app)
        : Command(app.add_subcommand(
              "trace",
              "Run PROGRAM and trace every host-pinning call it makes (CUPTI), with NVML device samples")) {
        app_->add_option("-o,--out", out_, "Trace file to write (docs/trace.md)")->capture_default_str();
        app_->add_option("--interval-ms", interval_ms_, "NVML sampling interval")
            ->check(CLI::Range(1, 10000))
            ->capture_default_str();
        app_->add_option("--stack", options_.stack_depth, "Native call-stack frames recorded per call")
            ->check(CLI::Range(0, 64));
        app_->add_option("--timeout", timeout_s_, "Kill the program after this many seconds (0: never)")
            ->check(FiniteNumber(0.0, max_timeout_s));
        app_->add_option("--cwd", options_.working_directory, "Working directory of the program");
        app_->add_option("--injection", options_.injection,
                         "The injection library (default: the one built beside pinbench)");
        app_->add_option("COMMAND", options_.command, "The program and its arguments, after --")->required();
        app_->footer(
            "The program's output passes through and its exit code is pinbench's (124 on a timeout, "
            "127 when it cannot start, 128+N on a signal).");
    }

    int run() override {
        options_.timeout = std::chrono::milliseconds(static_cast<long long>(timeout_s_ * 1000));
        options_.interval = std::chrono::milliseconds(interval_ms_);
        // Before the program runs, not after; never over the program or the injection library.
        const PreparedOutput out =
            prepare_output(out_, kDefaultTrace,
                           {options_.command.empty() ? "" : options_.command.front(), options_.injection});
        return trace::trace_main(options_, out.path(), std::cerr);
    }

private:
    trace::TraceOptions options_;
    static constexpr const char* kDefaultTrace = "pinbench-trace.json";
    std::string out_ = kDefaultTrace;
    double timeout_s_ = 0;
    int interval_ms_ = 20;
};

}  // namespace

void add_trace_command(CLI::App& app, Commands& commands) {
    commands.push_back(std::make_unique<TraceCommand>(app));
}

}  // namespace pinbench::cli
