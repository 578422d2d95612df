// Every API variant allocates, is used by the GPU, and moves data bit-exactly.
#include <gtest/gtest.h>

#include <cctype>

#include "gpu_available.hpp"
#include "pinbench/api_variant.hpp"
#include "pinbench/device.hpp"
#include "pinbench/errors.hpp"
#include "pinbench/host_buffer.hpp"

namespace pinbench {
namespace {

class EveryVariant : public ::testing::TestWithParam<std::tuple<ApiVariant, std::size_t>> {};

TEST_P(EveryVariant, AllocatesUsesAndRoundTripsData) {
    PINBENCH_REQUIRE_GPU();
    const auto [api, bytes] = GetParam();
    DeviceContext ctx(0);
    GpuUseWorkspace ws;
    auto buffer = allocate_host_buffer(api, bytes);
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(buffer->size(), bytes);
    EXPECT_EQ(buffer->api(), api);
    EXPECT_EQ(buffer->device_pointer() != nullptr, has_device_pointer(api)) << to_string(api);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer->data()) % host_page_size(), 0u);
    first_gpu_use(*buffer, ws);
    EXPECT_EQ(verify_round_trip(*buffer, ws, 0x5eedu), "") << to_string(api);
}

std::string name_of(const ::testing::TestParamInfo<EveryVariant::ParamType>& info) {
    std::string n =
        to_string(std::get<0>(info.param)) + "_" + std::to_string(std::get<1>(info.param) >> 20) + "MiB";
    for (char& c : n) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return n;
}

INSTANTIATE_TEST_SUITE_P(Sizes, EveryVariant,
                         ::testing::Combine(::testing::ValuesIn(all_api_variants()),
                                            ::testing::Values(std::size_t{64} << 20, std::size_t{1} << 30)),
                         name_of);

TEST(HostBuffer, OddSizeRoundTripsIncludingTheTail) {
    PINBENCH_REQUIRE_GPU();
    DeviceContext ctx(0);
    GpuUseWorkspace ws(std::size_t{1} << 20);  // several chunks
    auto buffer = allocate_host_buffer({ApiFamily::host_alloc, flag_mapped}, (std::size_t{3} << 20) + 7);
    EXPECT_EQ(verify_round_trip(*buffer, ws, 7u), "");
}

TEST(HostBuffer, OutOfMemoryIsACudaErrorNamingTheApi) {
    PINBENCH_REQUIRE_GPU();
    DeviceContext ctx(0);
    try {
        auto huge = allocate_host_buffer({ApiFamily::malloc_host, flag_none}, std::size_t{1} << 50);
        FAIL() << "pinned a petabyte";
    } catch (const CudaError& e) {
        EXPECT_EQ(e.api(), "cudaMallocHost");
        EXPECT_TRUE(e.is_out_of_memory()) << e.what();
    }
}

}  // namespace
}  // namespace pinbench
