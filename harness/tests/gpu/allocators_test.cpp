// Every API variant allocates, is used by the GPU, and moves data bit-exactly; the variants
// that depend on the OS or driver (may_be_unsupported) do that or throw UnsupportedError.
#include <gtest/gtest.h>

#include <cctype>
#include <memory>
#include <nlohmann/json.hpp>

#include "gpu_available.hpp"
#include "pinbench/cuda/device.hpp"
#include "pinbench/cuda/host_buffer.hpp"
#include "pinbench/vocabulary/api_variant.hpp"
#include "pinbench/vocabulary/errors.hpp"

namespace pinbench {
namespace {

class EveryVariant : public ::testing::TestWithParam<std::tuple<ApiVariant, std::size_t>> {};

TEST_P(EveryVariant, AllocatesUsesAndRoundTripsData) {
    PINBENCH_REQUIRE_GPU();
    const auto [api, bytes] = GetParam();
    DeviceContext ctx(0);
    GpuUseWorkspace ws;
    std::unique_ptr<HostBuffer> buffer;
    try {
        buffer = allocate_host_buffer(api, bytes);
    } catch (const UnsupportedError& e) {
        // Only the OS- and driver-dependent variants may be waived, and only with a reason.
        ASSERT_TRUE(may_be_unsupported(api)) << to_string(api) << ": " << e.what();
        ASSERT_NE(std::string(e.what()), "");
        GTEST_SKIP() << "WAIVED " << to_string(api) << ": " << e.what();
    }
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(buffer->size(), bytes);
    EXPECT_EQ(buffer->api(), api);
    EXPECT_EQ(buffer->device_pointer() != nullptr, has_device_pointer(api)) << to_string(api);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer->data()) % host_page_size(), 0u);
    first_gpu_use(*buffer, ws);
    EXPECT_EQ(verify_round_trip(*buffer, ws, 0x5eedu), "") << to_string(api);
    const nlohmann::json backing = buffer->backing();
    EXPECT_EQ(backing.value("requested", ""), to_string(api.pages)) << backing.dump();
#ifdef __linux__
    EXPECT_EQ(backing.value("verified", false), true) << backing.dump();
#endif
    if (api.location != HostLocation::none) {
        EXPECT_EQ(backing.value("location", ""), to_string(api.location)) << backing.dump();
    }
}

// The new variants with a size that is no multiple of any page or granularity: the tail
// (past the last whole page) round-trips too.
class MayBeWaived : public ::testing::TestWithParam<ApiVariant> {};

TEST_P(MayBeWaived, OddSizeRoundTripsOrIsWaivedWithAReason) {
    PINBENCH_REQUIRE_GPU();
    const ApiVariant api = GetParam();
    DeviceContext ctx(0);
    GpuUseWorkspace ws(std::size_t{1} << 20);
    std::unique_ptr<HostBuffer> buffer;
    try {
        buffer = allocate_host_buffer(api, (std::size_t{5} << 20) + 13);
    } catch (const UnsupportedError& e) {
        EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << e.what();
        GTEST_SKIP() << "WAIVED " << to_string(api) << ": " << e.what();
    }
    EXPECT_EQ(buffer->api(), api);
    EXPECT_EQ(verify_round_trip(*buffer, ws, 13u), "") << to_string(api);
    buffer.reset();  // frees through the matching API; a second allocation must work as well
    EXPECT_NO_THROW(buffer = allocate_host_buffer(api, std::size_t{2} << 20)) << to_string(api);
}

std::vector<ApiVariant> may_be_waived() {
    std::vector<ApiVariant> out;
    for (const ApiVariant& v : all_api_variants()) {
        if (may_be_unsupported(v)) out.push_back(v);
    }
    out.push_back({ApiFamily::host_register, flag_portable | flag_mapped, PageKind::thp});
    out.push_back({ApiFamily::host_register, flag_mapped, PageKind::hugetlb});
    return out;
}

std::string name_of(const ::testing::TestParamInfo<EveryVariant::ParamType>& info) {
    std::string n =
        to_string(std::get<0>(info.param)) + "_" + std::to_string(std::get<1>(info.param) >> 20) + "MiB";
    for (char& c : n) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return n;
}

INSTANTIATE_TEST_SUITE_P(Variants, MayBeWaived, ::testing::ValuesIn(may_be_waived()),
                         [](const ::testing::TestParamInfo<ApiVariant>& info) {
                             std::string n = to_string(info.param);
                             for (char& c : n) {
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             }
                             return n;
                         });

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
        EXPECT_EQ(e.api(), "cuMemHostAlloc");  // the driver call cudaMallocHost is (docs/kinds.md)
        EXPECT_TRUE(e.is_out_of_memory()) << e.what();
    }
}

}  // namespace
}  // namespace pinbench
