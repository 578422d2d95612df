// Gathering the environment record (pinbench/results/environment_record.hpp: its facts and keys).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "pinbench/cuda/nvml.hpp"
#include "pinbench/results/environment_record.hpp"

namespace pinbench {

// Gathered inside a child that may create CUDA contexts (the parent never does): the OS, CUDA
// and NVML facts of the first `gpus` devices. `nvml` may be null (then `nvml_why` says why).
EnvironmentRecord gather_environment(const Nvml* nvml, const std::string& nvml_why, int gpus);

// The gathered record as a results file holds it (pinbench/results/environment_record.hpp).
nlohmann::json collect_environment(const Nvml* nvml, const std::string& nvml_why, int gpus);

}  // namespace pinbench
