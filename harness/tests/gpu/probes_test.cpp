// The positive control in-process: a known device allocation moves the dedicated probes by
// its size. A probe that cannot see it fails here.
#include <gtest/gtest.h>

#include <cstdlib>

#include "gpu_available.hpp"
#include "pinbench/cuda/device.hpp"
#include "pinbench/cuda/nvml.hpp"
#include "pinbench/probes/snapshot.hpp"
#include "pinbench/vocabulary/errors.hpp"

namespace pinbench {
namespace {

constexpr std::int64_t GiB = std::int64_t{1} << 30;
constexpr std::int64_t tolerance = std::int64_t{2} << 20;

TEST(PositiveControl, CudaMemGetInfoMovesByTheAllocatedSize) {
    PINBENCH_REQUIRE_GPU();
    DeviceContext ctx(0);
    auto probe = make_cuda_meminfo_probe(0);
    Readings before, after;
    probe->read(before);
    {
        DeviceBuffer dev(GiB);
        probe->read(after);
    }
    const auto cost = cost_between("cuda.free", before.at("cuda.free"), after.at("cuda.free"));
    ASSERT_TRUE(cost.has_value());
    EXPECT_LE(std::llabs(*cost - GiB), tolerance) << "cudaMemGetInfo moved " << *cost;
}

TEST(PositiveControl, NvmlMovesByTheAllocatedSize) {
    PINBENCH_REQUIRE_GPU();
    std::string why;
    auto nvml = Nvml::open(&why);
    ASSERT_NE(nvml, nullptr) << "NVML must be available where a GPU is: " << why;
    DeviceContext ctx(0);  // ctest sets CUDA_DEVICE_ORDER=PCI_BUS_ID: CUDA 0 is NVML 0
    auto probe = make_nvml_probe(*nvml, {0}, 0);
    Readings before, after;
    probe->read(before);
    {
        DeviceBuffer dev(GiB);
        probe->read(after);
    }
    const auto cost = cost_between("nvml.0.used", before.at("nvml.0.used"), after.at("nvml.0.used"));
    ASSERT_TRUE(cost.has_value()) << before.at("nvml.0.used").unavailable;
    EXPECT_LE(std::llabs(*cost - GiB), tolerance) << "NVML used moved " << *cost;
}

TEST(Environment, DriverReleaseComesFromNvmlNotTheCudaVersion) {
    PINBENCH_REQUIRE_GPU();
    std::string why;
    auto nvml = Nvml::open(&why);
    ASSERT_NE(nvml, nullptr) << why;
    const auto release = nvml->driver_version();
    ASSERT_TRUE(release.value.has_value()) << release.why;
    EXPECT_NE(release.value->find('.'), std::string::npos) << *release.value;
}

}  // namespace
}  // namespace pinbench
