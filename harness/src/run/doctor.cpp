#include "run/doctor.hpp"

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/interrupt.hpp"
#include "pinbench/probes/platform_probes.hpp"
#include "pinbench/results/environment_record.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"
#include "pinbench/vocabulary/units.hpp"
#include "run/child_launcher.hpp"
#include "run/device_watch.hpp"
#include "run/environment.hpp"
#include "run/protocol.hpp"
#include "run/timestamp.hpp"
#include "run/watched_attempt.hpp"

namespace pinbench {
namespace {

void print_environment(const nlohmann::json& env, std::ostream& out) {
    out << "environment\n";
    for (const auto& [label, text] : environment_summary(env)) {
        out << "  " << label << std::string(label.size() < 20 ? 20 - label.size() : 1, ' ')
            << terminal_text(text) << "\n";
    }
}

void print_control(const std::string& name, const nlohmann::json& c, std::ostream& out) {
    // Every string here may come from the driver or a child's output: escaped (terminal_text).
    out << "  " << terminal_text(name) << ": " << terminal_text(c.value("verdict", "?"));
    if (c.contains("error")) {
        out << " (" << terminal_text(c["error"].get<std::string>().substr(0, 300)) << ")";
    }
    if (c.contains("why")) out << " (" << terminal_text(c["why"].get<std::string>()) << ")";
    out << "\n";
    const auto print_keys = [&](const nlohmann::json& keys) {
        for (const auto& [key, k] : keys.items()) {
            out << "      " << terminal_text(key) << ": ";
            if (k.contains("delta")) {
                out << "moved " << format_bytes_signed(k["delta"].get<std::int64_t>());
                if (k.contains("error")) {
                    out << " (off by " << format_bytes_signed(k["error"].get<std::int64_t>()) << ")";
                }
                out << " " << terminal_text(k.value("verdict", ""));
            } else if (k.contains("noise")) {
                out << "noise " << format_bytes(k["noise"].get<std::uint64_t>()) << " over " << k["n"]
                    << " reads";
            } else {
                out << terminal_text(k.value("verdict", "")) << " "
                    << terminal_text(k.value("why", k.value("unavailable", std::string())));
            }
            out << "\n";
        }
    };
    if (c.contains("disturbance")) {
        for (const auto& e : c["disturbance"].value("evidence", nlohmann::json::array())) {
            out << "      seen: " << terminal_text(e.value("text", std::string())) << "\n";
        }
    }
    if (c.contains("keys")) print_keys(c["keys"]);
    if (c.contains("shared_keys")) print_keys(c["shared_keys"]);
    if (c.contains("nvml_observer_delta")) {
        out << "      NVML (observer) moved "
            << format_bytes_signed(c["nvml_observer_delta"].get<std::int64_t>())
            << ", cudaMemGetInfo (measuring process) moved "
            << format_bytes_signed(c["cuda_measuring_delta"].get<std::int64_t>()) << "\n";
    }
}

}  // namespace

const char* const no_device_next_step =
    "Check the NVIDIA driver: does nvidia-smi list the GPU? Without a GPU, try the pipeline on "
    "committed results: pinbench run --backend replay --from h200-smoke --script relabel-demo "
    "(docs/replay.md)";

const char* const failed_control_next_step =
    "a probe that misses a known allocation cannot be trusted here. Run it again when the GPU is idle "
    "(docs/disturbance.md); if it fails again, attach pinbench doctor --bundle doctor.json to a report";

std::vector<std::string> wsl_notes(const nlohmann::json& environment) {
    const std::optional<int> wsl = wsl_version_of(environment);
    if (!wsl) return {};
    if (*wsl != 2) return {"WSL" + std::to_string(*wsl) + ": no GPU paravirtualization (CUDA needs WSL2)"};
    return {
        std::string("WSL2: the Windows WDDM driver through /dev/dxg; devices are recorded as driver model ") +
            kWsl2DriverModel + ", kept apart from native Windows and Linux in the store",
        "WSL2 lacks: NVML process lists and per-process memory (the device watch judges at device level "
        "only), nvml.<i>.process_used, dxgi.* and pdh.* (Windows APIs), the DXCore budgets (not read "
        "under WSL2: docs/wsl2.md), the LUID check (no DXGI adapter list)"};
}

nlohmann::json watch_level(const Nvml& nvml, const nlohmann::json& environment) {
    for (const unsigned device : watch_plan_for(environment, 1, 0).devices) {
        const auto procs = nvml.compute_processes(device);
        if (!procs.value) {
            return {
                {"level", "device"},
                {"why", "NVML gives no process list on device " + std::to_string(device) + ": " + procs.why}};
        }
    }
    return {{"level", "process"}};
}

nlohmann::json luid_check(const nlohmann::json& environment, const nlohmann::json& os_adapters) {
    if (platform_of(environment) != "windows") {
        return {{"verdict", "NOT APPLICABLE"}, {"why", "LUIDs exist on Windows only"}};
    }
    const std::string luid = device_luid_of(environment, 0);
    if (luid.empty()) return {{"verdict", "NOT APPLICABLE"}, {"why", "the CUDA device has no LUID (TCC)"}};
    for (const auto& a : os_adapters) {
        if (a.value("luid_bytes", "") == luid) return {{"verdict", "PASS"}, {"luid", luid}, {"adapter", a}};
    }
    return {{"verdict", "FAIL"},
            {"luid", luid},
            {"error", "no DXGI/DXCore adapter has the CUDA device's LUID " + luid}};
}

int run_doctor(const DoctorOptions& options, std::ostream& out, std::ostream& err) {
    ChildLauncher launcher(options.executable);
    nlohmann::json bundle;
    bundle["schema"] = "pinbench.doctor";
    bundle["schema_version"] = 1;
    bundle["created_at"] = utc_now();
    const auto stopped = [&](int sig) {
        err << "pinbench doctor: stopped by " << stop_signal_name(sig) << "; no verdict\n";
        return exit_code_for_signal(sig);
    };
    auto env =
        launcher.run({{"mode", child_mode::environment}, {"gpus", 8}}, std::chrono::milliseconds(60000));
    if (const int sig = stop_signal(); sig != 0) return stopped(sig);
    if (!env.response) {
        err << "pinbench doctor: the environment child failed: " << terminal_text(env.problem) << "\n"
            << terminal_text(env.outcome.output) << "\n";
        return exit_code::infrastructure;
    }
    bundle["environment"] = env.response->at("data");
    print_environment(bundle["environment"], out);
    for (const std::string& note : wsl_notes(bundle["environment"])) out << terminal_text(note) << "\n";
    int code = exit_code::ok;
    std::string verdict;  // the last line: PASS, or what failed and the next step (standard error)
    if (cuda_device_count_of(bundle["environment"]).value_or(0) == 0) {
        verdict = "pinbench doctor: no CUDA device (" +
                  terminal_text(cuda_device_count_why_of(bundle["environment"])) +
                  "). Nothing can be measured here. " + no_device_next_step;
        code = exit_code::infrastructure;
    } else {
        std::string why;
        const auto nvml = Nvml::open(&why);
        out << "  nvml library        " << (nvml ? nvml->library() : "not loaded: " + why) << "\n";
        if (nvml) {
            bundle["watch"] = watch_level(*nvml, bundle["environment"]);
            if (bundle["watch"]["level"] == "device") {
                out << "watch: device level only ("
                    << terminal_text(bundle["watch"]["why"].get<std::string>())
                    << "): a neighbour is seen by when device usage moves, never by who; runs need repeats "
                       "that "
                       "agree (docs/disturbance.md)\n";
            }
            const std::string left = leftovers_on_gpu(*nvml, bundle["environment"]);
            if (!left.empty() && !options.allow_busy_gpu) {
                err << "FAIL: " << terminal_text(left) << leftover_advice << "\n";
                return exit_code::infrastructure;
            }
        }
        bundle["controls"] =
            run_controls(launcher, nvml.get(), options.controls, bundle["environment"], WatchOptions{});
        if (const int sig = stop_signal(); sig != 0) return stopped(sig);
        bundle["os_adapters"] = list_os_adapters();
        bundle["controls"]["luid"] = luid_check(bundle["environment"], bundle["os_adapters"]);
        out << "controls (positive control size " << format_bytes(options.controls.positive_bytes)
            << ", tolerance " << format_bytes(static_cast<std::uint64_t>(options.controls.tolerance))
            << ")\n";
        for (const auto& [name, c] : bundle["controls"].items()) print_control(name, c, out);
        std::string failures;
        if (!controls_passed(bundle["controls"], &failures)) {
            verdict = "FAIL: " + terminal_text(failures) + "; " + failed_control_next_step;
            code = exit_code::infrastructure;
        }
    }
    bundle["exit_code"] = code;
    // The bundle before the verdict: a bundle that cannot be written ends the command (exit 3)
    // before any PASS is printed (its path was checked before the controls ran).
    if (!options.bundle_path.empty()) {
        write_file_atomically(options.bundle_path, bundle.dump(1) + "\n");
        out << "bundle: " << terminal_text(options.bundle_path) << "\n";
    }
    if (code == exit_code::ok) {
        out << "PASS: every control passed\n";
    } else {
        out.flush();
        err << verdict << "\n";
    }
    return code;
}

}  // namespace pinbench
