// What each fuzz target feeds its reader, shared by the libFuzzer targets (fuzz_*.cpp, built with
// -DPINBENCH_FUZZ=ON: ci/fuzz.sh) and the CPU test that replays every input a fuzzer once crashed
// on (harness/tests/cpu/fuzz_regressions_test.cpp, harness/tests/fixtures/fuzz-regressions/).
// The contract each target checks: bad input ends in InputError (exit 2, one line), anything
// else (another exception, a crash, a leak, a sanitizer report, a hang) is a finding. The output
// target checks an invariant besides (fuzz_output_target.hpp): a broken one throws
// InvariantBroken, a finding too.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "json/json_reader.hpp"
#include "pinbench/results/metric_catalog.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/scenario/plan.hpp"
#include "pinbench/scenario/scenario.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "trace/trace_document.hpp"

namespace pinbench::fuzz {

// A scenario file: parsed, and expanded into its plan as `pinbench plan` does.
inline void scenario(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        (void)expand(parse_scenario_text(text, "fuzz.yaml", unknown_metric_reason));
    } catch (const InputError&) {
    }
}

// A results file: the strict JSON reader, then the results reader (which upgrades an older
// version), then written back as `results upgrade` does.
inline void results(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        (void)to_json(results_from_json(detail::parse_strict_json(text, "fuzz.json"), "fuzz.json")).dump();
    } catch (const InputError&) {
    }
}

// A trace's events file (what the injection library writes, JSON lines): parsed, then built
// into the trace document as `pinbench trace` does. Unreadable lines are counted, never thrown;
// events that would give a value outside trace.schema.json's bounds are refused (InputError).
inline void trace(const std::uint8_t* data, std::size_t size) {
    trace::Gathered g;
    g.command = {"fuzz"};
    g.status.kind = "exited";
    g.events = trace::parse_event_lines(std::string(reinterpret_cast<const char*>(data), size));
    try {
        (void)trace::build_trace(g).dump();
    } catch (const InputError&) {
    }
}

}  // namespace pinbench::fuzz

#ifndef _WIN32
#include "fuzz_output_target.hpp"
#endif
