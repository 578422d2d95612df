// pinbench trace without a GPU: the events format, the pinned timeline and the cost at the peak
// (from committed real traces and small made-up ones), and the CLI with bad commands.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "cuda/pin_event.hpp"
#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/dynamic_library.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "platform/injection_platform.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"
#include "trace/device_samples.hpp"
#include "trace/pinned_timeline.hpp"
#include "trace/trace_document.hpp"

namespace pinbench::trace {
namespace {

constexpr std::uint64_t kMiB = 1024 * 1024;
const std::string kTraces = std::string(PINBENCH_SOURCE_DIR) + "/results/h200-trace";

PinCall call(std::string api, std::int64_t t, std::uint64_t bytes, std::uint64_t address,
             std::uint32_t pid = 7) {
    PinCall c;
    c.api = std::move(api);
    c.pid = pid;
    c.t_ns = t;
    c.bytes = bytes;
    c.address = address;
    c.result_name = "CUDA_SUCCESS";
    return c;
}

// The calls of a committed trace as the injection wrote them (times back in ns).
std::vector<PinCall> calls_of(const nlohmann::json& trace) {
    std::string lines;
    for (auto c : trace.at("calls")) {
        c["event"] = "call";
        c["t_ns"] = static_cast<std::int64_t>(c.at("t_ms").get<double>() * 1e6);
        lines += c.dump() + "\n";
    }
    return parse_event_lines(lines).calls;
}

TEST(TraceEvents, ACallAndAStartSurviveTheirLine) {
    PinCall c = call("cuMemCreate", 123, 512 * kMiB, 0xabc);
    c.location = "host_numa:0";
    c.pool_reserved = 42;
    c.stack = {"prog+0x10"};
    const InjectionStart s{9, 5, "libcupti.so", "taken"};
    const EventLog log =
        parse_event_lines(to_json_line(s).dump() + "\n" + to_json_line(c).dump() + "\n{broken\n");
    ASSERT_EQ(log.starts.size(), 1U);
    EXPECT_EQ(log.starts[0].error, "taken");
    ASSERT_EQ(log.calls.size(), 1U);
    EXPECT_EQ(log.calls[0].bytes, 512 * kMiB);
    EXPECT_EQ(log.calls[0].location, "host_numa:0");
    EXPECT_EQ(*log.calls[0].pool_reserved, 42U);
    EXPECT_EQ(log.calls[0].stack, std::vector<std::string>{"prog+0x10"});
    EXPECT_EQ(log.unreadable_lines, 1) << "a line cut short by a killed process is counted, not fatal";
}

TEST(TraceTimeline, AFreeReleasesWhatTheSameProcessPinnedAtThatAddress) {
    const std::vector<PinCall> calls = {
        call("cuMemHostAlloc", 1, 100, 0x1000),
        call("cuMemHostRegister_v2", 2, 50, 0x2000),
        call("cuMemFreeHost", 3, 0, 0x1000, /*pid=*/8),  // another process: not ours to release
        call("cuMemFreeHost", 4, 0, 0x1000),
        call("cuMemHostUnregister", 5, 0, 0x2000),
    };
    const PinnedTimeline t = build_timeline(calls);
    EXPECT_EQ(t.peak_held, 150U);
    EXPECT_EQ(t.peak_end_ns, 4);
    EXPECT_EQ(t.unmatched_releases, 1);
    ASSERT_FALSE(t.points.empty());
    EXPECT_EQ(t.points.back().held, 0U);
}

TEST(TraceTimeline, AHostPoolCountsItsReservedBytesNotTheBytesAsked) {
    PinCall create = call("cuMemPoolCreate", 1, 0, 0x9);
    create.pool = 0x9;
    create.pool_reserved = 0;
    PinCall alloc = call("cuMemAllocFromPoolAsync", 2, 100, 0x50);
    alloc.pool = 0x9;
    alloc.pool_reserved = 2 * kMiB;                      // the pool reserves in its own granules
    PinCall freed = call("cuMemFreeAsync", 3, 0, 0x50);  // no pool argument: the reservation stays
    PinCall trim = call("cuMemPoolTrimTo", 4, 0, 0);
    trim.pool = 0x9;
    trim.pool_reserved = 0;
    const PinnedTimeline t = build_timeline({create, alloc, freed, trim});
    EXPECT_EQ(t.peak_held, 2 * kMiB);
    EXPECT_EQ(t.peak_end_ns, 4) << "held until the trim, not the free";
    EXPECT_EQ(t.by_api.at("cuMemAllocFromPoolAsync").bytes_asked, 100U);
}

// The committed C++ workload trace (results/h200-trace): every entry point pinned at once, each
// with a size of its own; at the peak the timeline holds exactly what the program says it asked.
TEST(TraceTimeline, TheRealCppTraceHoldsEachAskedSizeAtThePeak) {
    const auto trace = nlohmann::json::parse(read_file(kTraces + "/trace-pin-each-api.json"));
    const PinnedTimeline t = build_timeline(calls_of(trace));
    const auto& asked = trace.at("notes").at("asked");
    std::map<std::string, std::string> api_of = {
        {"cudaMallocHost", "cuMemHostAlloc"},         {"cudaHostAlloc", "cuMemHostAlloc"},
        {"cudaHostRegister", "cuMemHostRegister_v2"}, {"cuMemAllocHost", "cuMemAllocHost_v2"},
        {"cuMemHostAlloc", "cuMemHostAlloc"},         {"cuMemCreate", "cuMemCreate"},
    };
    std::uint64_t expected = 0;
    for (const auto& [program_api, driver_api] : api_of) {
        const auto bytes = asked.at(program_api).get<std::uint64_t>();
        expected += bytes;
        const bool held = std::any_of(t.at_peak.begin(), t.at_peak.end(), [&](const Holding& h) {
            return h.api == driver_api && h.bytes == bytes;
        });
        EXPECT_TRUE(held) << program_api << " as " << driver_api << " of " << bytes << " B";
    }
    expected += trace.at("notes").at("pool_reserved").get<std::uint64_t>();  // the pool at its reservation
    EXPECT_EQ(t.peak_held, expected);
    EXPECT_EQ(t.peak_held, trace.at("pinned").at("peak_bytes").get<std::uint64_t>());
    EXPECT_EQ(t.unmatched_releases, 0);
}

DeviceSample sample(std::int64_t t, std::uint64_t used, std::map<std::uint32_t, std::uint64_t> processes) {
    DeviceSample s;
    s.t_ns = t;
    DeviceReading r;
    r.used = used;
    r.processes = std::move(processes);
    r.processes_known = true;
    s.devices.push_back(r);
    return s;
}

TEST(TracePeakCost, DeviceMinusOwnFromTheLastConsistentSampleWithTheProgramsContext) {
    const std::vector<PinCall> calls = {call("cuMemHostAlloc", 100, 1024 * kMiB, 0x1)};
    const PinnedTimeline t = build_timeline(calls);
    std::vector<DeviceSample> samples = {
        sample(10, 8 * kMiB, {}),                   // before the context: its overhead would count
        sample(20, 540 * kMiB, {{7, 530 * kMiB}}),  // the context, 10 MiB of it not per-process
        sample(90, 100 * kMiB, {{7, 530 * kMiB}}),  // read while the process list moved
        sample(150, 542 * kMiB, {{7, 530 * kMiB}}),
        sample(160, 542 * kMiB, {{7, 530 * kMiB}}),
        sample(170, 542 * kMiB, {{7, 530 * kMiB}}),
    };
    samples[2].consistent = false;
    const PeakCost cost = cost_at_peak(t, calls, samples, {7}, 200);
    ASSERT_EQ(cost.devices.size(), 1U);
    ASSERT_TRUE(cost.devices[0].cost) << cost.devices[0].why;
    EXPECT_EQ(*cost.devices[0].cost, static_cast<std::int64_t>(2 * kMiB));
    EXPECT_EQ(cost.baseline_t_ns, 20);
    EXPECT_FALSE(cost.baseline_before_context);
    EXPECT_EQ(cost.devices[0].samples, 3);
    EXPECT_TRUE(cost.devices[0].disturbances.empty());
}

TEST(TracePeakCost, ABaselineBeforeTheContextIsFlagged) {
    const std::vector<PinCall> calls = {call("cuMemHostAlloc", 100, 1024 * kMiB, 0x1)};
    const PeakCost cost =
        cost_at_peak(build_timeline(calls), calls,
                     {sample(10, 8 * kMiB, {}), sample(150, 550 * kMiB, {{7, 530 * kMiB}})}, {7}, 200);
    EXPECT_TRUE(cost.baseline_before_context);
}

TEST(TracePeakCost, ANeighbourThatChangesIsADisturbanceNotACost) {
    const std::vector<PinCall> calls = {call("cuMemHostAlloc", 100, 1024 * kMiB, 0x1)};
    const PinnedTimeline t = build_timeline(calls);
    const std::vector<DeviceSample> samples = {
        sample(10, 600 * kMiB, {{7, 512 * kMiB}, {99, 80 * kMiB}}),
        sample(20, 600 * kMiB, {{7, 512 * kMiB}, {99, 80 * kMiB}}),
        sample(150, 800 * kMiB, {{7, 512 * kMiB}, {99, 280 * kMiB}}),
    };
    const PeakCost cost = cost_at_peak(t, calls, samples, {7}, 200);
    ASSERT_EQ(cost.devices.size(), 1U);
    ASSERT_EQ(cost.devices[0].disturbances.size(), 1U);
    EXPECT_NE(cost.devices[0].disturbances[0].find("pid 99"), std::string::npos);
}

TEST(TracePeakCost, APeakShorterThanTheSamplingIntervalSaysSo) {
    const std::vector<PinCall> calls = {call("cuMemHostAlloc", 100, kMiB, 0x1),
                                        call("cuMemFreeHost", 105, 0, 0x1)};
    const PinnedTimeline t = build_timeline(calls);
    const PeakCost cost =
        cost_at_peak(t, calls, {sample(10, kMiB, {{7, 0}}), sample(200, kMiB, {{7, 0}})}, {7}, 300);
    ASSERT_EQ(cost.devices.size(), 1U);
    EXPECT_FALSE(cost.devices[0].cost);
    EXPECT_NE(cost.devices[0].why.find("sampling interval"), std::string::npos) << cost.devices[0].why;
}

TEST(TraceDocument, AProgramThatPinsNothingGetsATraceSayingSo) {
    Gathered g;
    g.command = {"true"};
    g.status = {"exited", 0, 0, ""};
    g.injection = "/lib/inject.so";
    g.events.starts.push_back({7, 1, "libcupti.so", ""});
    const auto doc = build_trace(g);
    EXPECT_EQ(doc.at("schema"), kTraceSchema);
    EXPECT_EQ(doc.at("version"), kTraceVersion);
    EXPECT_EQ(doc.at("tracing").at("state"), "on");
    EXPECT_EQ(doc.at("pinned").at("summary"), "the program made no host-pinning call");
    EXPECT_EQ(doc.at("pinned").at("peak_bytes"), 0);
}

TEST(TraceDocument, AProcessThatCouldNotSubscribeMakesTracingUnavailable) {
    Gathered g;
    g.injection = "/lib/inject.so";
    g.events.starts.push_back({7, 1, "", "another profiler or tracer already holds the CUPTI subscription"});
    EXPECT_EQ(tracing_state(g).state, "unavailable");
    g.events.starts.push_back({8, 2, "libcupti.so", ""});
    EXPECT_EQ(tracing_state(g).state, "partial");
    EXPECT_NE(tracing_state(g).message.find("1 of 2"), std::string::npos);
}

// The injection's OS side (injection_platform_{posix,win32}.cpp), on both platforms.
TEST(TraceInjectionPlatform, EventLinesAppendWholeAndAMissingLibrarySaysWhy) {
    const testing_support::TempDir dir("pinbench_trace_platform");
    const std::string path = dir.file("events.jsonl");
    {
        const EventFile first(path);
        ASSERT_TRUE(first.is_open());
        first.append_line(to_json_line(call("cuMemHostAlloc", 1, 4096, 0x10)).dump());
        const EventFile second(path);  // a second process appends to the same file
        second.append_line(to_json_line(call("cuMemFreeHost", 2, 0, 0x10)).dump());
    }
    const EventLog log = parse_event_lines(read_file(path));
    ASSERT_EQ(log.calls.size(), 2U);
    EXPECT_EQ(log.calls[1].api, "cuMemFreeHost");
    EXPECT_GT(current_process_id(), 0U);
    // CUPTI is loaded through DynamicLibrary: a missing one names every name it tried.
    std::string why;
    EXPECT_EQ(DynamicLibrary::open({"pinbench-no-such-library-1", "pinbench-no-such-library-2"}, &why),
              nullptr);
    EXPECT_NE(why.find("pinbench-no-such-library-2"), std::string::npos) << why;
#ifndef _WIN32
    EXPECT_FALSE(cupti_candidates().empty()) << "POSIX always ends with the loader's own search by name";
#endif
}

#ifndef _WIN32
struct TraceRun {
    ProcessOutcome outcome;
    nlohmann::json trace;
};

TraceRun run_trace_cli(const std::vector<std::string>& extra, const std::vector<std::string>& command) {
    const testing_support::TempDir dir("pinbench_trace");
    const std::string out = dir.file("trace.json");
    std::vector<std::string> argv{PINBENCH_EXE, "trace", "-o", out};
    argv.insert(argv.end(), extra.begin(), extra.end());
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    Subprocess p(argv, {});
    TraceRun r{p.wait(std::chrono::seconds(60)), nullptr};
    if (std::filesystem::exists(out)) r.trace = nlohmann::json::parse(read_file(out));
    return r;
}

TEST(TraceCli, AMissingProgramIsRecordedAsNotStartedAndExits127) {
    const TraceRun r = run_trace_cli({}, {"/nonexistent/program"});
    EXPECT_EQ(r.outcome.exit_code, 127) << r.outcome.output;
    ASSERT_TRUE(r.trace.is_object()) << r.outcome.output;
    EXPECT_EQ(r.trace.at("status").at("kind"), "not_started");
    EXPECT_NE(r.outcome.output.find("cannot start '/nonexistent/program'"), std::string::npos)
        << r.outcome.output;
}

TEST(TraceCli, TheProgramsOutputAndExitCodePassThrough) {
    const TraceRun r = run_trace_cli({}, {"sh", "-c", "echo from-the-program; exit 3"});
    EXPECT_EQ(r.outcome.exit_code, 3) << r.outcome.output;
    EXPECT_NE(r.outcome.output.find("from-the-program"), std::string::npos) << r.outcome.output;
    ASSERT_TRUE(r.trace.is_object());
    EXPECT_EQ(r.trace.at("status").at("kind"), "exited");
    EXPECT_EQ(r.trace.at("status").at("exit_code"), 3);
    EXPECT_EQ(r.trace.at("calls").size(), 0U);
    EXPECT_EQ(r.trace.at("tracing").at("state"), "not_loaded")
        << "no CUDA here: nothing loaded the injection";
}

TEST(TraceCli, ATimeoutKillsTheProgramAndExits124) {
    const TraceRun r = run_trace_cli({"--timeout", "0.5"}, {"sleep", "30"});
    EXPECT_EQ(r.outcome.exit_code, 124) << r.outcome.output;
    ASSERT_TRUE(r.trace.is_object());
    EXPECT_EQ(r.trace.at("status").at("kind"), "timed_out");
    EXPECT_LT(r.outcome.wall_ms, 20000);
}

TEST(TraceCli, TheProgramsNotesAreKept) {
    const TraceRun r =
        run_trace_cli({}, {"sh", "-c", "echo '{\"batch_bytes\": 5}' >> \"$PINBENCH_TRACE_NOTES\""});
    EXPECT_EQ(r.outcome.exit_code, 0) << r.outcome.output;
    ASSERT_TRUE(r.trace.is_object());
    EXPECT_EQ(r.trace.at("notes").at("batch_bytes"), 5);
}
#endif

}  // namespace
}  // namespace pinbench::trace
