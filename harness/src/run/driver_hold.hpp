// A holder process keeps the CUDA driver initialised (cuInit, never a context) while the children
// measure, as a persistence daemon keeps a GPU ready: each child then starts and ends faster, and
// measures the same costs where the repeat is one process (docs/scenario-format.md, "Less waiting
// per repeat"). Beside a held driver a repeat that starts other CUDA processes reads 64 KiB more
// on the H100, so the holder is stopped for such a run and started again for the next one.
#pragma once

#include <iosfwd>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pinbench/scenario/plan.hpp"

namespace pinbench {

class ChildLauncher;
class Subprocess;

// The holder's hidden subcommand (`pinbench __hold-driver --parent PID`) and the first line it
// writes: `ready` once the driver is initialised, else `not ready: ` and the reason.
inline constexpr const char* holder_subcommand = "__hold-driver";
inline constexpr const char* holder_ready = "ready";
inline constexpr const char* holder_not_ready = "not ready: ";

// The holder process: loads the driver and calls cuInit (cuda::InitialisedDriver), writes its
// line to `out`, then holds it until `in` ends (the parent closed its stdin) and returns 0;
// returns 1 at once when the driver cannot be initialised.
int hold_driver_main(std::istream& in, std::ostream& out);

class DriverHold {
public:
    // Whether the hold applies to this invocation: `wanted` (not --fresh-driver), a device
    // described, and every described device on the native Linux driver model. Where it does,
    // the holder starts now (through `launcher`, which outlives the hold), so the controls
    // measure beside it as the runs do; else nothing is held and why() says why not.
    static DriverHold for_plan(const nlohmann::json& environment, ChildLauncher& launcher, bool wanted);
    DriverHold();
    DriverHold(DriverHold&&) noexcept;
    DriverHold& operator=(DriverHold&&) noexcept;
    ~DriverHold();  // stops the holder: closes its stdin and waits for its exit

    // Whether the holder may run beside `run`: not where its kind starts other CUDA processes
    // (KindSpec::starts_cuda_processes), whose costs move beside a held driver.
    static bool holds_beside(const PlannedRun& run);

    // Before `run` is measured: stops the holder where it may not run beside it, else starts it
    // where it is not running (a holder that fails to start leaves the rest of the plan without
    // one, and why() says so). True when it started or stopped, or failed to: the devices' usage
    // moved, so the next reading must wait for it to settle. Nothing where the hold does not apply.
    bool before_run(const PlannedRun& run);

    bool applies() const { return launcher_ != nullptr; }  // for_plan started a holder
    bool held() const { return held_; }              // a holder held the driver for the controls and runs
    const std::string& why() const { return why_; }  // held: what it saves; not held: the reason
    // The runs measured without the holder, in plan order (the hold applied to them otherwise).
    const std::vector<std::string>& released_for() const { return released_for_; }

    // environment.parent_driver (docs/results-schema.md): held, why, and released_for where
    // the hold applies.
    void note(nlohmann::json& environment) const;

private:
    bool start(std::string* why);  // the holder started and ready; else false with *why
    void stop();

    ChildLauncher* launcher_ = nullptr;   // set where the hold applies
    bool failed_ = false;                 // a holder failed to start: none for the rest of the plan
    std::unique_ptr<Subprocess> holder_;  // the running holder, or null
    bool held_ = false;
    std::string why_;
    std::vector<std::string> released_for_;
};

}  // namespace pinbench
