// The driver path costs what the runtime path costs: for every API variant with standard pages,
// at 1 and 4 GiB, pinbench's allocators (the CUDA driver API through the table) take exactly the
// device memory that a program calling the CUDA runtime itself takes (runtime_pin_cost.cu, built
// with nvcc): after allocation, after first use and after freeing, byte for byte. Skips without
// a GPU, and where no nvcc built the runtime program.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "gpu_available.hpp"
#include "pinbench/cuda/device.hpp"
#include "pinbench/cuda/host_buffer.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/vocabulary/api_variant.hpp"
#include "pinbench/vocabulary/errors.hpp"

namespace pinbench {
namespace {

struct Cost {
    long long after_alloc = 0, after_use = 0, residual = 0;
};

std::string text(const Cost& c) {
    return "after allocation " + std::to_string(c.after_alloc) + " B, after first use " +
           std::to_string(c.after_use) + " B, residual " + std::to_string(c.residual) + " B";
}

long long free_bytes(const DeviceContext& ctx) { return static_cast<long long>(ctx.mem_info().free); }

// The driver path, in this process: the steps of runtime_pin_cost.cu with pinbench's calls.
Cost driver_cost(ApiVariant api, std::size_t bytes) {
    DeviceContext ctx(0);
    GpuUseWorkspace ws;  // the 64 MiB copy target and the result word, before the baseline
    ctx.synchronize();
    Cost c;
    const long long baseline = free_bytes(ctx);
    auto buffer = allocate_host_buffer(api, bytes);
    ctx.synchronize();
    c.after_alloc = baseline - free_bytes(ctx);
    first_gpu_use(*buffer, ws);
    c.after_use = baseline - free_bytes(ctx);
    buffer.reset();
    ctx.synchronize();
    c.residual = baseline - free_bytes(ctx);
    return c;
}

class DriverVsRuntime : public ::testing::TestWithParam<std::tuple<std::string, std::size_t>> {};

TEST_P(DriverVsRuntime, TakeTheSameDeviceMemory) {
    PINBENCH_REQUIRE_GPU();
    const std::string runtime_program = PINBENCH_RUNTIME_PIN_COST_EXE;
    if (runtime_program.empty())
        GTEST_SKIP() << "the runtime reference program needs nvcc, not found at build time";
    const auto [name, bytes] = GetParam();
    const ApiVariant api = *parse_api_variant(name, nullptr);
    Cost driver;
    try {
        driver = driver_cost(api, bytes);
    } catch (const UnsupportedError& e) {
        ASSERT_TRUE(may_be_unsupported(api)) << name << ": " << e.what();
        GTEST_SKIP() << "WAIVED " << name << ": " << e.what();
    }
    Subprocess reference({runtime_program, name, std::to_string(bytes), has_device_pointer(api) ? "1" : "0"},
                         {});
    const ProcessOutcome out = reference.wait(std::chrono::minutes(2));
    ASSERT_EQ(out.kind, ProcessOutcome::Kind::exited) << out.output;
    if (out.exit_code == 4) GTEST_SKIP() << "the runtime path cannot do " << name << " here: " << out.output;
    ASSERT_EQ(out.exit_code, 0) << out.output;
    const auto j = nlohmann::json::parse(out.output.substr(out.output.find('{')));
    const Cost runtime{j.at("after_alloc").get<long long>(), j.at("after_use").get<long long>(),
                       j.at("residual").get<long long>()};
    EXPECT_EQ(driver.after_alloc, runtime.after_alloc)
        << name << "\n driver:  " << text(driver) << "\n runtime: " << text(runtime);
    EXPECT_EQ(driver.after_use, runtime.after_use)
        << name << "\n driver:  " << text(driver) << "\n runtime: " << text(runtime);
    EXPECT_EQ(driver.residual, runtime.residual)
        << name << "\n driver:  " << text(driver) << "\n runtime: " << text(runtime);
    std::cout << name << " " << (bytes >> 30) << " GiB: " << text(driver) << " (both paths)\n";
}

std::string test_name(const ::testing::TestParamInfo<DriverVsRuntime::ParamType>& info) {
    std::string n = std::get<0>(info.param) + "_" + std::to_string(std::get<1>(info.param) >> 30) + "GiB";
    for (char& ch : n) {
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    }
    return n;
}

// Every variant with standard pages (the huge page kinds depend on the OS, not on the CUDA path).
INSTANTIATE_TEST_SUITE_P(
    Apis, DriverVsRuntime,
    ::testing::Combine(::testing::Values("pageable", "cudaMallocHost", "cudaHostAlloc",
                                         "cudaHostAlloc:portable", "cudaHostAlloc:mapped",
                                         "cudaHostAlloc:write_combined", "cudaHostAlloc:portable+mapped",
                                         "cudaHostRegister", "cudaHostRegister:portable",
                                         "cudaHostRegister:mapped", "cudaHostRegister:portable+mapped",
                                         "cuMemCreate:host", "cudaMallocFromPoolAsync:host"),
                       ::testing::Values(std::size_t{1} << 30, std::size_t{4} << 30)),
    test_name);

}  // namespace
}  // namespace pinbench
