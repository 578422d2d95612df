// Where the parent keeps the driver initialised (run/driver_hold.hpp): only where every device
// runs the native Linux driver model, and never when told not to; the reason is always given.
// Holding it on Linux is tested against the driver double (DoubleEndToEnd).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "pinbench/results/environment_record.hpp"
#include "run/driver_hold.hpp"

namespace pinbench {
namespace {

nlohmann::json environment_of(std::initializer_list<const char*> models) {
    nlohmann::json devices = nlohmann::json::array();
    for (const char* m : models) devices.push_back({{"driver_model", {{"current", m}, {"pending", m}}}});
    return {{"platform", "windows"}, {"devices", devices}};
}

TEST(DriverHold, NotHeldUnderAWindowsDriverModelNamingIt) {
    for (const char* model : {"WDDM", "TCC", "MCDM", kWsl2DriverModel}) {
        SCOPED_TRACE(model);
        const DriverHold hold = DriverHold::for_environment(environment_of({"linux", model}), true);
        EXPECT_FALSE(hold.held());
        EXPECT_EQ(hold.why(), std::string("not held: device 1 runs the ") + model +
                                  " driver model (measured on native Linux only)");
    }
}

TEST(DriverHold, NotHeldWhenToldOrWithoutADevice) {
    const DriverHold off = DriverHold::for_environment(environment_of({"linux"}), false);
    EXPECT_FALSE(off.held());
    EXPECT_EQ(off.why(), "off (--fresh-driver): every child initialises the driver alone");
    const DriverHold none = DriverHold::for_environment(environment_of({}), true);
    EXPECT_FALSE(none.held());
    EXPECT_EQ(none.why(), "not held: no device described");
}

}  // namespace
}  // namespace pinbench
