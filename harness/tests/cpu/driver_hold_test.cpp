// Where the parent keeps the driver initialised (run/driver_hold.hpp): only where every device
// runs the native Linux driver model and no run starts other CUDA processes, and never when told
// not to; the reason is always given. Holding it on Linux is tested against the driver double
// (DoubleEndToEnd).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "pinbench/results/environment_record.hpp"
#include "pinbench/scenario/plan.hpp"
#include "run/driver_hold.hpp"

namespace pinbench {
namespace {

nlohmann::json environment_of(std::initializer_list<const char*> models) {
    nlohmann::json devices = nlohmann::json::array();
    for (const char* m : models) devices.push_back({{"driver_model", {{"current", m}, {"pending", m}}}});
    return {{"platform", "windows"}, {"devices", devices}};
}

Plan plan_of(std::initializer_list<const char*> kinds) {
    Plan plan;
    for (const char* k : kinds) {
        PlannedRun run;
        run.kind = k;
        run.id = std::string(k) + "-run/cudaMallocHost/64MiB/x1/g1";
        plan.runs.push_back(run);
    }
    return plan;
}

const Plan one_process =
    plan_of({"overhead", "capacity", "sweep", "multi_gpu", "churn", "fragmentation", "register_window"});

TEST(DriverHold, NotHeldUnderAWindowsDriverModelNamingIt) {
    for (const char* model : {"WDDM", "TCC", "MCDM", kWsl2DriverModel}) {
        SCOPED_TRACE(model);
        const DriverHold hold = DriverHold::for_run(environment_of({"linux", model}), one_process, true);
        EXPECT_FALSE(hold.held());
        EXPECT_EQ(hold.why(), std::string("not held: device 1 runs the ") + model +
                                  " driver model (measured on native Linux only)");
    }
}

TEST(DriverHold, NotHeldWhenToldOrWithoutADevice) {
    const DriverHold off = DriverHold::for_run(environment_of({"linux"}), one_process, false);
    EXPECT_FALSE(off.held());
    EXPECT_EQ(off.why(), "off (--fresh-driver): every child initialises the driver alone");
    const DriverHold none = DriverHold::for_run(environment_of({}), one_process, true);
    EXPECT_FALSE(none.held());
    EXPECT_EQ(none.why(), "not held: no device described");
}

// Beside a held driver the H100's workers and shared runs read 64 KiB more (the README of
// results/answer-in-a-minute): a plan with a kind that starts other CUDA processes is not held.
TEST(DriverHold, NotHeldForAPlanWithARunThatStartsOtherCudaProcesses) {
    for (const char* kind : {"workers", "shared", "command"}) {
        SCOPED_TRACE(kind);
        const DriverHold hold =
            DriverHold::for_run(environment_of({"linux"}), plan_of({"overhead", kind}), true);
        EXPECT_FALSE(hold.held());
        EXPECT_EQ(hold.why(), std::string("not held: ") + kind +
                                  "-run/cudaMallocHost/64MiB/x1/g1 starts other CUDA "
                                  "processes (kind " +
                                  kind + "), whose costs move beside a held driver");
    }
}

}  // namespace
}  // namespace pinbench
