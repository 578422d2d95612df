#include "run/driver_hold.hpp"

#include "pinbench/cuda/initialised_driver.hpp"
#include "pinbench/results/environment_record.hpp"
#include "pinbench/scenario/plan.hpp"
#include "scenario/kind_table.hpp"

namespace pinbench {

DriverHold::DriverHold() = default;
DriverHold::DriverHold(DriverHold&&) noexcept = default;
DriverHold& DriverHold::operator=(DriverHold&&) noexcept = default;
DriverHold::~DriverHold() = default;

DriverHold DriverHold::for_run(const nlohmann::json& environment, const Plan& plan, bool wanted) {
    DriverHold hold;
    if (!wanted) {
        hold.why_ = "off (--fresh-driver): every child initialises the driver alone";
        return hold;
    }
    // On the H100 the workers (per process) and shared runs of nightly.yaml read 64 KiB more
    // residual and per-worker context beside a held driver, every repeat; one-process kinds read
    // the same to the byte (results/answer-in-a-minute/README.md).
    for (const PlannedRun& run : plan.runs) {
        if (const KindSpec* kind = find_kind(run.kind); kind != nullptr && kind->starts_cuda_processes) {
            hold.why_ = "not held: " + run.id + " starts other CUDA processes (kind " + run.kind +
                        "), whose costs move beside a held driver";
            return hold;
        }
    }
    // Measured on native Linux only (results/answer-in-a-minute/probe): under WDDM, TCC, MCDM
    // and WSL2 what an initialised process costs and saves is not known, so nothing changes there.
    const std::size_t devices = described_device_count(environment);
    for (std::size_t i = 0; i < devices; ++i) {
        if (const std::string model = driver_model_of(environment, i); model != "linux") {
            hold.why_ = "not held: device " + std::to_string(i) + " runs the " + model +
                        " driver model (measured on native Linux only)";
            return hold;
        }
    }
    if (devices == 0) {
        hold.why_ = "not held: no device described";
        return hold;
    }
    std::string why;
    hold.driver_ = cuda::InitialisedDriver::open(&why);
    if (!hold.held()) {
        hold.why_ = "not held: " + why;
        return hold;
    }
    // On the H100 a child's cuInit took 95 ms and its exit 40 ms with no other process holding
    // the driver, 9 and 4 ms beside one; the holder's own 3.25 MiB (NVML's used) is there before
    // the first reading and never moves, so no cost does.
    hold.why_ =
        "held: the parent initialised the driver (no context), so each child's start and exit skip the "
        "driver's own";
    return hold;
}

}  // namespace pinbench
