// Where a holder process keeps the driver initialised (run/driver_hold.hpp): only where every
// device runs the native Linux driver model, never when told not to (the reason is always given),
// and never beside a run that starts other CUDA processes. Holding it on Linux, started and
// stopped per run, is tested against the driver double (DoubleEndToEnd).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "pinbench/results/environment_record.hpp"
#include "pinbench/scenario/plan.hpp"
#include "run/child_launcher.hpp"
#include "run/driver_hold.hpp"
#include "scenario/kind_table.hpp"
#include "test_paths.hpp"

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

// Never started in these tests: the hold does not apply to any of their environments.
ChildLauncher& launcher() {
    static ChildLauncher launcher(PINBENCH_EXE);
    return launcher;
}

TEST(DriverHold, NotHeldUnderAWindowsDriverModelNamingIt) {
    for (const char* model : {"WDDM", "TCC", "MCDM", kWsl2DriverModel}) {
        SCOPED_TRACE(model);
        const DriverHold hold = DriverHold::for_plan(environment_of({"linux", model}), launcher(), true);
        EXPECT_FALSE(hold.held());
        EXPECT_FALSE(hold.applies());
        EXPECT_EQ(hold.why(), std::string("not held: device 1 runs the ") + model +
                                  " driver model (measured on native Linux only)");
    }
}

TEST(DriverHold, NotHeldWhenToldOrWithoutADevice) {
    const DriverHold off = DriverHold::for_plan(environment_of({"linux"}), launcher(), false);
    EXPECT_FALSE(off.held());
    EXPECT_EQ(off.why(), "off (--fresh-driver): every child initialises the driver alone");
    const DriverHold none = DriverHold::for_plan(environment_of({}), launcher(), true);
    EXPECT_FALSE(none.held());
    EXPECT_EQ(none.why(), "not held: no device described");
}

// Beside a held driver the H100's workers and shared runs read 64 KiB more (the README of
// results/answer-in-a-minute): the holder stands aside for every kind that starts other CUDA
// processes, and only for those.
TEST(DriverHold, StandsAsideForTheRunsThatStartOtherCudaProcesses) {
    std::set<std::string> aside;
    for (const KindSpec& kind : kind_specs()) {
        const std::string name(kind.name);
        if (!DriverHold::holds_beside(plan_of({name.c_str()}).runs.at(0))) aside.insert(name);
    }
    EXPECT_EQ(aside, (std::set<std::string>{"command", "shared", "workers"}));
    EXPECT_GT(kind_specs().size(), aside.size());
}

// A hold that does not apply starts nothing and notes nothing per run.
TEST(DriverHold, ANoHoldIgnoresItsRuns) {
    DriverHold off = DriverHold::for_plan(environment_of({"linux"}), launcher(), false);
    for (const char* kind : {"overhead", "workers"}) EXPECT_FALSE(off.before_run(plan_of({kind}).runs.at(0)));
    EXPECT_TRUE(off.released_for().empty());
    nlohmann::json environment = nlohmann::json::object();
    off.note(environment);
    EXPECT_EQ(environment.at("parent_driver"),
              (nlohmann::json{{"held", false},
                              {"why", "off (--fresh-driver): every child initialises the driver alone"}}));
}

}  // namespace
}  // namespace pinbench
