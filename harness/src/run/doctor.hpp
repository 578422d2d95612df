// `pinbench doctor`: the environment and every control's verdict, plus a JSON bundle a user
// can attach to a bug report.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "run/controls.hpp"

namespace pinbench {

struct DoctorOptions {
    std::string executable;
    std::string bundle_path;  // empty: no bundle (`pinbench doctor --bundle FILE` asks for one)
    ControlOptions controls;
    bool allow_busy_gpu = false;  // run beside a leftover pinbench process
};

// Prints the environment and the controls to `out`, then PASS there, or what failed with the next
// step to `err`; writes the bundle, when asked, before that last line. Returns 0 when every
// control passed, exit_code::infrastructure otherwise (a failed control, no GPU, a LUID mismatch).
int run_doctor(const DoctorOptions& options, std::ostream& out, std::ostream& err);

// The next step after `pinbench doctor` or `pinbench run` found no CUDA device, and after a
// failed control: what to check and what to try.
extern const char* const no_device_next_step;
extern const char* const failed_control_next_step;

// Under WSL2: what is measured there and which probes it lacks (docs/wsl2.md), as lines for the
// doctor's output; empty elsewhere.
std::vector<std::string> wsl_notes(const nlohmann::json& environment);

// How the device watch can judge here: {"level": "process"} when NVML lists the compute
// processes of every device described, {"level": "device", "why": ...} when it does not
// (WSL2): the watch then sees device usage only (docs/disturbance.md).
nlohmann::json watch_level(const Nvml& nvml, const nlohmann::json& environment);

// The LUID check: on Windows the CUDA device's LUID must be one the OS lists (DXGI or DXCore).
nlohmann::json luid_check(const nlohmann::json& environment, const nlohmann::json& os_adapters);

}  // namespace pinbench
