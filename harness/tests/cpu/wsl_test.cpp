// WSL detection from the kernel's own strings (wsl_facts, probes/wsl.cpp), and what a WSL2
// record becomes downstream: driver model WDDM (WSL2), its own store key, and the doctor's notes
// on what WSL2 lacks. The fixture record (environment_record_test.cpp) carries the same record
// to pinreport.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "pinbench/results/environment_record.hpp"
#include "pinbench/store/store.hpp"
#include "run/doctor.hpp"

namespace pinbench {
namespace {

std::optional<OsFacts::Wsl> facts(const char* release, const char* version = "", bool dxg = false,
                                  bool lib = false) {
    return wsl_facts({release, version, dxg, lib});
}

TEST(Wsl, TheWsl2KernelReleaseSaysWsl2) {
    const auto wsl =
        facts("5.15.167.4-microsoft-standard-WSL2",
              "Linux version 5.15.167.4-microsoft-standard-WSL2 (root@f9c826d3017f) (gcc (GCC) 11.2.0)", true,
              true);
    ASSERT_TRUE(wsl);
    EXPECT_EQ(wsl->version, 2);
    EXPECT_EQ(wsl->signals, (std::vector<std::string>{"kernel release 5.15.167.4-microsoft-standard-WSL2",
                                                      "/dev/dxg", "/usr/lib/wsl"}));
    EXPECT_FALSE(wsl->windows_build.value);
    EXPECT_NE(wsl->windows_build.why.find("interop"), std::string::npos);
}

TEST(Wsl, OlderWsl2KernelsAndCustomKernelsWithDxg) {
    const auto older = facts("4.19.128-microsoft-standard");
    ASSERT_TRUE(older);
    EXPECT_EQ(older->version, 2);
    const auto custom = facts("6.6.36-custom", "Linux version 6.6.36-custom (me@box)", true);
    ASSERT_TRUE(custom);
    EXPECT_EQ(custom->version, 2);
    EXPECT_EQ(custom->signals, std::vector<std::string>{"/dev/dxg"});
}

TEST(Wsl, Wsl1CarriesTheWindowsBuildInItsRelease) {
    const auto wsl =
        facts("4.4.0-19041-Microsoft", "Linux version 4.4.0-19041-Microsoft (Microsoft@Microsoft.com)");
    ASSERT_TRUE(wsl);
    EXPECT_EQ(wsl->version, 1);
    ASSERT_TRUE(wsl->windows_build.value);
    EXPECT_EQ(*wsl->windows_build.value, "19041");
}

TEST(Wsl, NativeLinuxIsNoWsl) {
    EXPECT_FALSE(facts("6.8.0-60-generic", "Linux version 6.8.0-60-generic (buildd@lcy02-amd64-080)"));
    EXPECT_FALSE(facts("6.8.0-60-generic", "", false, true)) << "/usr/lib/wsl alone is not enough";
    EXPECT_FALSE(
        facts("5.15.131.1-2.cm2", "Linux version 5.15.131.1-2.cm2 (builder@microsoft.com) (gcc 11.2.0)"))
        << "a builder's address at Microsoft is no WSL";
    // /proc/version speaks when the release does not (a renamed release string).
    const auto by_version = facts("5.15.0", "Linux version 5.15.0-microsoft-standard-WSL2 (oe-user@oe-host)");
    ASSERT_TRUE(by_version);
    EXPECT_EQ(by_version->version, 2);
}

EnvironmentRecord wsl2_record() {
    EnvironmentRecord r;
    r.os.platform = "linux";
    r.os.os_name = Maybe<std::string>::of("Ubuntu 24.04.1 LTS");
    r.os.kernel = Maybe<std::string>::of("5.15.167.4-microsoft-standard-WSL2");
    r.os.wsl = facts("5.15.167.4-microsoft-standard-WSL2", "", true, true);
    r.driver_release = Maybe<std::string>::of("581.57");
    r.cuda_device_count = 1;
    DeviceRecord d;
    CudaDeviceProperties p;
    p.name = "NVIDIA GeForce RTX 4090";
    d.cuda.properties = Maybe<CudaDeviceProperties>::of(p);
    NvmlDeviceFacts n;
    n.driver_model_current = n.driver_model_pending = Maybe<std::string>::none("Not Supported");
    d.nvml = Maybe<NvmlDeviceFacts>::of(n);
    r.devices.push_back(d);
    return r;
}

TEST(Wsl, AWsl2RecordIsWddmUnderItsOwnStoreKey) {
    const nlohmann::json env = environment_json(wsl2_record());
    EXPECT_EQ(driver_model_of(env), "WDDM (WSL2)");
    EXPECT_EQ(wsl_version_of(env), 2);
    EXPECT_EQ(driver_model_family(driver_model_of(env)), "WDDM") << "scenarios for WDDM run here";
    EXPECT_EQ(env["os"]["wsl"]["signals"].size(), 3u);
    const StoreKey key = store_key_of(env);
    EXPECT_EQ(key.platform, "linux");
    EXPECT_EQ(key.driver_model, "wddm-wsl2") << "apart from native Windows (wddm) and Linux (linux)";
    bool said = false;
    for (const auto& [label, text] : environment_summary(env)) {
        if (label == "wsl") said = text.find("WSL2") != std::string::npos;
    }
    EXPECT_TRUE(said);
}

TEST(Wsl, DoctorSaysWhatWsl2Lacks) {
    const auto notes = wsl_notes(environment_json(wsl2_record()));
    ASSERT_EQ(notes.size(), 2u);
    EXPECT_NE(notes[0].find("WDDM (WSL2)"), std::string::npos) << notes[0];
    for (const char* lacking : {"NVML process lists", "device level only", "dxgi.*", "pdh.*", "DXCore"}) {
        EXPECT_NE(notes[1].find(lacking), std::string::npos) << lacking << ": " << notes[1];
    }
    EnvironmentRecord native = wsl2_record();
    native.os.wsl.reset();
    const nlohmann::json env = environment_json(native);
    EXPECT_TRUE(wsl_notes(env).empty());
    EXPECT_EQ(driver_model_of(env), "linux");
}

}  // namespace
}  // namespace pinbench
