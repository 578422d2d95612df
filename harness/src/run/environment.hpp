// The environment record: everything that could explain a difference between two runs.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pinbench/nvml.hpp"

namespace pinbench {

// Collected inside a child that may create CUDA contexts (the parent never does). `nvml` may
// be null (then `nvml_why` says why). Anything unreadable is {"unavailable": "reason"}.
nlohmann::json collect_environment(const Nvml* nvml, const std::string& nvml_why, int gpus);

// "WDDM", "TCC", "MCDM", "linux" or "unknown" for device `index` of a record.
std::string driver_model_of(const nlohmann::json& environment, std::size_t index = 0);

}  // namespace pinbench
