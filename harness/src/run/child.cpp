// One isolated measurement per process. Each mode creates its context, runs the fixed
// warm-up, snapshots after settling, and reports through an atomically written response.
#include "run/child.hpp"

#include <algorithm>
#include <chrono>
#include <iostream>
#include <new>
#include <thread>
#include <vector>

#include "pinbench/cuda/device.hpp"
#include "pinbench/cuda/host_buffer.hpp"
#include "pinbench/cuda/nvml.hpp"
#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/interrupt.hpp"
#include "pinbench/probes/platform_probes.hpp"
#include "pinbench/results/results.hpp"
#include "pinbench/scenario/plan.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "run/environment.hpp"
#include "run/measuring_devices.hpp"
#include "run/measuring_probes.hpp"
#include "run/protocol.hpp"
#include "run/replay_child.hpp"
#include "run/settle.hpp"
#include "scenario/kind_table.hpp"

namespace pinbench {
namespace {

// One repeat of `run` by its kind's measurement (KindSpec::measure), found in the registry.
RepeatRecord measure(const PlannedRun& run, const Nvml* nvml) {
    const KindSpec* kind = find_kind(run.kind);
    if (kind == nullptr || kind->measure == nullptr) {
        throw InputError("run " + run.id + ": unknown kind '" + run.kind + "'");
    }
    return kind->measure(run, nvml);
}

// What a mode produces: the repeat's status, snapshots and timings, plus mode-specific data.
struct Outcome {
    RepeatRecord record;
    nlohmann::json data = nlohmann::json::object();
    nlohmann::json injected_watch;  // replay: a trace for the parent's disturbance judgement
};

Outcome run_null_control(const nlohmann::json& request, const Nvml* nvml) {
    Outcome out;
    const int samples = std::max(request.value("samples", 20), 1);
    // The samples span a window about as long as a repeat: noise that comes and goes in
    // seconds is seen, which 20 quick reads were not.
    const auto interval = std::chrono::milliseconds(request.value("window_ms", 200) / samples);
    const auto start = SteadyClock::now();
    Devices devices = open_devices(1, false);
    const ProbeSet probes = make_measuring_probes(devices.ids, nvml);
    devices.synchronize();
    for (int i = 0; i < samples; ++i) {
        out.record.snapshots.push_back(immediate_snapshot(probes, "sample_" + std::to_string(i), start));
        // This process does nothing from its first sample on: the whole window is idle.
        auto& w = out.record.snapshots.back().window;
        w.begin_ns = w.stable_ns = out.record.snapshots.front().window.begin_ns;
        std::this_thread::sleep_for(interval);
    }
    return out;
}

Outcome run_positive(const nlohmann::json& request, const Nvml* nvml, bool device_memory) {
    Outcome out;
    const std::uint64_t bytes = request.at("bytes").get<std::uint64_t>();
    const auto start = SteadyClock::now();
    Devices devices = open_devices(1, !device_memory);
    const ProbeSet probes = make_measuring_probes(devices.ids, nvml);
    devices.synchronize();
    out.record.snapshots.push_back(settled_snapshot(probes, "before", start));
    {
        std::unique_ptr<DeviceBuffer> dev;
        std::unique_ptr<HostBuffer> host;
        if (device_memory) {
            dev = std::make_unique<DeviceBuffer>(bytes);
        } else {
            host = allocate_host_buffer({ApiFamily::malloc_host, flag_none}, bytes);
            first_gpu_use(*host, *devices.workspaces.front());
        }
        devices.synchronize();
        out.record.snapshots.push_back(settled_snapshot(probes, "holding", start));
    }
    devices.synchronize();
    out.record.snapshots.push_back(settled_snapshot(probes, "after_free", start));
    return out;
}

// Cross-check: the parent reads NVML while this process holds S bytes; the lines on stdout
// and stdin are the handshake.
Outcome run_hold(const nlohmann::json& request, const Nvml* nvml) {
    Outcome out;
    const std::uint64_t bytes = request.at("bytes").get<std::uint64_t>();
    const auto start = SteadyClock::now();
    Devices devices = open_devices(1, false);
    const ProbeSet probes = make_measuring_probes(devices.ids, nvml);
    devices.synchronize();
    out.record.snapshots.push_back(settled_snapshot(probes, "before", start));
    std::string line;
    std::cout << "ready" << std::endl;
    if (!std::getline(std::cin, line) || line != "go") {
        throw std::runtime_error("hold: expected 'go' from the parent");
    }
    {
        DeviceBuffer dev(bytes);
        devices.synchronize();
        out.record.snapshots.push_back(settled_snapshot(probes, "holding", start));
        std::cout << "holding" << std::endl;
        if (!std::getline(std::cin, line) || line != "release") {
            throw std::runtime_error("hold: expected 'release' from the parent");
        }
    }
    devices.synchronize();
    out.record.snapshots.push_back(settled_snapshot(probes, "after_free", start));
    return out;
}

nlohmann::json make_response(const nlohmann::json& request, const Outcome& outcome) {
    nlohmann::json r;
    r["protocol"] = child_protocol;
    r["nonce"] = request.value("nonce", "");
    r["run_id"] = request.value("run_id", "");
    r["repeat"] = request.value("repeat", -1);
    r["record"] = to_json(outcome.record);
    r["data"] = outcome.data;
    if (!outcome.injected_watch.is_null()) r["injected_watch"] = outcome.injected_watch;
    return r;
}

}  // namespace

int child_main(const std::string& request_path, std::span<const ChildMode> more_modes) {
    const auto main_at = SteadyClock::now();
    nlohmann::json request;
    try {
        request = nlohmann::json::parse(read_file(request_path));
    } catch (const std::exception& e) {
        std::cerr << "pinbench __child: cannot read request " << request_path << ": " << e.what() << "\n";
        return exit_code::bad_input;
    }
    // Never outlive the parent: a killed nightly must not leave a child holding device memory.
    die_with_parent(request.value("parent_pid", std::uint32_t{0}));
    const std::string mode = request.value("mode", "");
    Outcome outcome;
    outcome.record.index = request.value("repeat", -1);
    outcome.record.nonce = request.value("nonce", "");
    outcome.record.pid = current_process_id();
    // Where the time went (results-schema.md, "Phases"): the parent's launch to this main, and
    // this main to the response; the steady clock is machine-wide (run/settle.hpp).
    if (const std::int64_t launched = request.value("launched_ns", std::int64_t{0}); launched > 0) {
        outcome.record.phases_ms["start"] = static_cast<double>(steady_ns(main_at) - launched) / 1e6;
    }
    outcome.record.phases_ms["measure"] =
        std::chrono::duration<double, std::milli>(SteadyClock::now() - main_at).count();
    try {
        if (mode == child_mode::replay) {
            outcome.record = replay_repeat(request, &outcome.injected_watch);  // may crash or hang on purpose
        } else {
            std::string nvml_why;
            const auto nvml = Nvml::open(&nvml_why);
            if (mode == child_mode::environment) {
                outcome.data = collect_environment(nvml.get(), nvml_why, request.value("gpus", 1));
            } else if (mode == child_mode::measure) {
                outcome.record = measure(planned_run_from_json(request.at("run")), nvml.get());
            } else if (mode == child_mode::null_control) {
                outcome = run_null_control(request, nvml.get());
            } else if (mode == child_mode::positive_device || mode == child_mode::positive_host) {
                outcome = run_positive(request, nvml.get(), mode == child_mode::positive_device);
            } else if (mode == child_mode::hold_device) {
                outcome = run_hold(request, nvml.get());
            } else if (const auto more = std::find_if(more_modes.begin(), more_modes.end(),
                                                      [&](const ChildMode& m) { return m.name == mode; });
                       more != more_modes.end()) {
                outcome.data = more->serve(request, nvml.get());
            } else {
                std::cerr << "pinbench __child: unknown mode '" << mode << "'\n";
                return exit_code::bad_input;
            }
        }
    } catch (const UnsupportedError& e) {
        // The machine cannot do what the run asks (too few GPUs, an API the driver lacks,
        // more than it can pin): WAIVED with the reason, never a 0.
        outcome.record.status = Status::waived;
        outcome.record.error = e.what();
    } catch (const std::exception& e) {
        // A CUDA error (or any other) ends this repeat as failed; the run goes on.
        outcome.record.status = Status::failed;
        outcome.record.error = e.what();
    }
    outcome.record.index = request.value("repeat", -1);
    outcome.record.nonce = request.value("nonce", "");
    outcome.record.pid = current_process_id();
    // Where the time went (results-schema.md, "Phases"): the parent's launch to this main, and
    // this main to the response; the steady clock is machine-wide (run/settle.hpp).
    if (const std::int64_t launched = request.value("launched_ns", std::int64_t{0}); launched > 0) {
        outcome.record.phases_ms["start"] = static_cast<double>(steady_ns(main_at) - launched) / 1e6;
    }
    outcome.record.phases_ms["measure"] =
        std::chrono::duration<double, std::milli>(SteadyClock::now() - main_at).count();
    try {
        write_file_atomically(request.at("response_path").get<std::string>(),
                              make_response(request, outcome).dump());
    } catch (const std::exception& e) {
        std::cerr << "pinbench __child: cannot write response: " << e.what() << "\n";
        return exit_code::infrastructure;
    }
    return 0;
}

}  // namespace pinbench
