// The parent keeps the CUDA driver initialised (cuInit, never a context) while its children
// measure, as a persistence daemon keeps a GPU ready: each child then starts and ends faster, and
// measures the same costs where the repeat is one process (docs/scenario-format.md, "Less waiting
// per repeat").
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <string>

namespace pinbench {

struct Plan;

namespace cuda {
class InitialisedDriver;
}

class DriverHold {
public:
    // Holds the driver where `wanted`, no run of `plan` starts other CUDA processes
    // (KindSpec::starts_cuda_processes) and every described device runs the native Linux driver
    // model; else holds nothing, and why() says why not.
    static DriverHold for_run(const nlohmann::json& environment, const Plan& plan, bool wanted);
    DriverHold();
    DriverHold(DriverHold&&) noexcept;
    DriverHold& operator=(DriverHold&&) noexcept;
    ~DriverHold();

    bool held() const { return driver_ != nullptr; }
    const std::string& why() const { return why_; }  // held: what it saves; not held: the reason

private:
    std::unique_ptr<cuda::InitialisedDriver> driver_;  // kept for the run's life
    std::string why_;
};

}  // namespace pinbench
