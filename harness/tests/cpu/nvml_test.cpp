// NVML wrapper. On a machine without the driver only the "library absent" path runs; on a GPU
// machine that test skips and the others check real readings. CTest also runs the NvmlDevice
// tests against the test-double NVML (NvmlDeviceAgainstTheDouble, docs/test-double.md).
#include <gtest/gtest.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "pinbench/cuda/nvml.hpp"
#include "pinbench/results/environment_record.hpp"
#include "pinbench/vocabulary/test_double.hpp"

namespace pinbench {
namespace {

TEST(NvmlOpen, ReportsWhyWhenTheLibraryIsAbsent) {
    std::string why;
    const auto nvml = Nvml::open(&why);
    if (nvml) GTEST_SKIP() << "NVML is present here; the absent-library path cannot be tested";
    ASSERT_FALSE(why.empty());
#ifdef _WIN32
    EXPECT_NE(why.find("nvml.dll"), std::string::npos) << why;
#else
    EXPECT_NE(why.find("libnvidia-ml"), std::string::npos) << why;
#endif
}

TEST(NvmlOpen, AcceptsANullReason) {
    // Must not write through a null pointer whichever way open() goes.
    const auto nvml = Nvml::open(nullptr);
    SUCCEED();
}

class NvmlDevice : public ::testing::Test {
protected:
    void SetUp() override {
        std::string why;
        nvml_ = Nvml::open(&why);
        if (!nvml_) GTEST_SKIP() << "no NVML: " << why;
    }
    std::unique_ptr<Nvml> nvml_;
};

TEST_F(NvmlDevice, DriverVersionIsDigitsAndDots) {
    const auto v = nvml_->driver_version();
    ASSERT_TRUE(v.value.has_value()) << v.why;
    // The test double's release is digits and dots marked as its own ("0.0-test-double").
    const std::string marked = std::string("-") + test_double_marker;
    const bool double_release = v.value->size() > marked.size() && v.value->ends_with(marked);
    const std::string release =
        double_release ? v.value->substr(0, v.value->size() - marked.size()) : *v.value;
    EXPECT_TRUE(std::regex_match(release, std::regex(R"(\d+(\.\d+)+)"))) << *v.value;
}

TEST_F(NvmlDevice, CudaDriverVersionIsAThousandsNumber) {
    const auto v = nvml_->cuda_driver_version();
    ASSERT_TRUE(v.value.has_value()) << v.why;
    EXPECT_GE(*v.value, 10000);  // 12040 = CUDA 12.4; nothing older runs this suite
}

TEST_F(NvmlDevice, HasAtLeastOneDevice) { EXPECT_GE(nvml_->device_count(), 1u); }

TEST_F(NvmlDevice, MemoryOfDeviceZeroIsConsistent) {
    ASSERT_GE(nvml_->device_count(), 1u);
    const NvmlDeviceMemory m = nvml_->memory(0);
    ASSERT_TRUE(m.total.value.has_value()) << m.total.why;
    ASSERT_TRUE(m.used.value.has_value()) << m.used.why;
    ASSERT_TRUE(m.free.value.has_value()) << m.free.why;
    EXPECT_GT(*m.total.value, 0u);
    EXPECT_LE(*m.used.value, *m.total.value);
    EXPECT_LE(*m.free.value, *m.total.value);
    // Either a value or a reason, never neither.
    EXPECT_TRUE(m.reserved.value.has_value() || !m.reserved.why.empty());
}

TEST_F(NvmlDevice, IndexPastTheEndIsUnavailableWithAReason) {
    const unsigned past = nvml_->device_count();
    const NvmlDeviceMemory m = nvml_->memory(past);
    EXPECT_FALSE(m.total.value.has_value());
    EXPECT_NE(m.total.why.find("out of range"), std::string::npos) << m.total.why;
    EXPECT_FALSE(nvml_->name(past).value.has_value());
}

TEST_F(NvmlDevice, DescribeDeviceZero) {
    ASSERT_GE(nvml_->device_count(), 1u);
    const nlohmann::json d = nvml_device_json(nvml_device_facts(*nvml_, 0));
    ASSERT_TRUE(d.contains("name"));
    EXPECT_TRUE(d["name"].is_string()) << d.dump();
    EXPECT_FALSE(d["name"].get<std::string>().empty());
    EXPECT_EQ(d.at("nvml_index").get<unsigned>(), 0u);
    EXPECT_TRUE(d.at("memory_total").is_number_unsigned()) << d.dump();
    for (const char* key : {"uuid", "pci_bus_id", "architecture", "pcie", "numa_node", "persistence_mode",
                            "compute_mode", "display_active", "ecc", "mig", "driver_model"}) {
        EXPECT_TRUE(d.contains(key)) << key;
    }
    // Driver model: a Windows name, or unavailable with a reason.
    const nlohmann::json& dm = d.at("driver_model").at("current");
    if (dm.is_object()) {
        EXPECT_FALSE(dm.at("unavailable").get<std::string>().empty());
    } else {
        const std::string s = dm.get<std::string>();
        EXPECT_TRUE(s == "WDDM" || s == "TCC" || s == "MCDM") << s;
    }
}

TEST_F(NvmlDevice, ProbeReadsDeviceKeysAndMissesAnAbsentPid) {
    ASSERT_GE(nvml_->device_count(), 1u);
    // No process has this pid, so the per-process key must say so rather than read 0.
    const std::uint32_t absent_pid = 0xFFFFFFF0u;
    const auto probe = make_nvml_probe(*nvml_, {0}, absent_pid);
    EXPECT_EQ(probe->name(), "nvml");
    EXPECT_NE(probe->source().find("NVML"), std::string::npos);
    Readings r;
    probe->read(r);
    for (const char* key : {"nvml.0.used", "nvml.0.free", "nvml.0.total"}) {
        ASSERT_TRUE(r.count(key)) << key;
        EXPECT_TRUE(r.at(key).available()) << key << ": " << r.at(key).unavailable;
    }
    ASSERT_TRUE(r.count("nvml.0.reserved"));
    EXPECT_GT(*r.at("nvml.0.total").bytes, 0);
    ASSERT_TRUE(r.count("nvml.0.process_used"));
    EXPECT_FALSE(r.at("nvml.0.process_used").available());
    EXPECT_FALSE(r.at("nvml.0.process_used").unavailable.empty());
}

TEST_F(NvmlDevice, ProbeWithoutPidHasNoProcessKey) {
    ASSERT_GE(nvml_->device_count(), 1u);
    const auto probe = make_nvml_probe(*nvml_, {0}, 0);
    Readings r;
    probe->read(r);
    EXPECT_EQ(r.count("nvml.0.process_used"), 0u);
    EXPECT_EQ(r.size(), 4u);
}

}  // namespace
}  // namespace pinbench
