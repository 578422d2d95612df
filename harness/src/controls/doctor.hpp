// `pinbench doctor`: the environment and every control's verdict, plus a JSON bundle a user
// can attach to a bug report.
#pragma once

#include <ostream>
#include <string>

#include "controls/controls.hpp"

namespace pinbench {

struct DoctorOptions {
    std::string executable;
    std::string bundle_path = "pinbench-doctor.json";
    ControlOptions controls;
    bool allow_busy_gpu = false;  // run beside a leftover pinbench process
};

// Prints to `out`; returns 0 when every control passed, exit_code::infrastructure otherwise
// (a failed control, no GPU, a LUID mismatch).
int run_doctor(const DoctorOptions& options, std::ostream& out);

// The LUID check: on Windows the CUDA device's LUID must be one the OS lists (DXGI or DXCore).
nlohmann::json luid_check(const nlohmann::json& environment, const nlohmann::json& os_adapters);

}  // namespace pinbench
