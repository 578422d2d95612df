// A machine without the CUDA driver (what the host-only build was before the CUDA core loaded the
// driver at run time; the Windows check under Wine runs this way): the CUDA backend says "no CUDA
// driver (libcuda.so.1 not found: ...)" and exits 3, bad input is still exit 2, and doctor still
// collects the environment, its CUDA fields "unavailable" with that reason. Skipped where a
// driver (or the test double) loads.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "pinbench/cuda/device.hpp"
#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

#ifdef _WIN32
constexpr const char* kNoDriver = "no CUDA driver (nvcuda.dll not found: ";
#else
constexpr const char* kNoDriver = "no CUDA driver (libcuda.so.1 not found: ";
#endif

ProcessOutcome run_cli(std::vector<std::string> args) {
    args.insert(args.begin(), PINBENCH_EXE);
    Subprocess p(args, {});
    return p.wait(60s);
}

#define PINBENCH_REQUIRE_NO_DRIVER()                                                       \
    do {                                                                                   \
        std::string why_;                                                                  \
        if (cuda_device_count(&why_) > 0 || why_.rfind(kNoDriver, 0) != 0)                 \
            GTEST_SKIP() << "a CUDA driver loads here (" << why_ << "); this test is for " \
                         << "machines without";                                            \
    } while (0)

TEST(NoDriver, TheDeviceCountSaysWhichLibraryIsMissing) {
    PINBENCH_REQUIRE_NO_DRIVER();
    std::string why;
    EXPECT_EQ(cuda_device_count(&why), 0);
    EXPECT_EQ(why.rfind(kNoDriver, 0), 0u) << why;
    EXPECT_EQ(why.back(), ')') << why;
}

TEST(NoDriver, RunWithTheCudaBackendSaysThereIsNoDriver) {
    PINBENCH_REQUIRE_NO_DRIVER();
    const auto results = fs::temp_directory_path() / "pinbench-no-driver.json";
    const auto out =
        run_cli({"run", std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml", "-o", results.string()});
    EXPECT_EQ(out.exit_code, 3) << out.output;
    EXPECT_NE(out.output.find(std::string("no CUDA device here (") + kNoDriver), std::string::npos)
        << out.output;
    fs::remove(results);
}

TEST(NoDriver, ABadScenarioIsStillBadInput) {
    const auto out =
        run_cli({"run", std::string(PINBENCH_FIXTURES) + "/scenarios/bad/capacity_unknown_param.yaml"});
    EXPECT_EQ(out.exit_code, 2) << out.output;
}

TEST(NoDriver, DoctorCollectsTheEnvironmentAndSaysWhyNothingIsMeasured) {
    PINBENCH_REQUIRE_NO_DRIVER();
    const auto bundle = fs::temp_directory_path() / "pinbench-no-driver-doctor.json";
    fs::remove(bundle);
    const auto out = run_cli({"doctor", "--bundle", bundle.string()});
    EXPECT_EQ(out.exit_code, 3) << out.output;
    EXPECT_NE(out.output.find(std::string("pinbench doctor: no CUDA device (") + kNoDriver),
              std::string::npos)
        << out.output;
    EXPECT_NE(out.output.find("--backend replay"), std::string::npos) << "the next step\n" << out.output;
    ASSERT_TRUE(fs::exists(bundle)) << out.output;
    const auto doc = nlohmann::json::parse(read_file(bundle.string()));
    const auto& env = doc.at("environment");
    const auto& os = env.at("os");
    // The facts every machine can give, read through the platform's own calls (os_facts()).
    EXPECT_TRUE(os.value("os_name", json()).is_string()) << os.dump(1);
    EXPECT_FALSE(os.value("hostname", std::string()).empty()) << os.dump(1);
    EXPECT_GT(os.value("host_ram_bytes", std::uint64_t{0}), std::uint64_t{256} << 20) << os.dump(1);
    // CPUs this process may run on can be fewer than those online, never more.
    EXPECT_GE(os.value("cpu_count", 0u), std::thread::hardware_concurrency()) << os.dump(1);
#ifdef _WIN32
    EXPECT_EQ(env.value("platform", ""), "windows") << env.dump(1);
    ASSERT_TRUE(os.value("session_id", json()).is_number_unsigned()) << os.dump(1);
    EXPECT_EQ(os.value("session0", json()), os["session_id"].get<unsigned>() == 0) << os.dump(1);
    EXPECT_FALSE(os.contains("kernel"));
#else
    EXPECT_EQ(env.value("platform", ""), "linux") << env.dump(1);
    EXPECT_FALSE(os.value("kernel", std::string()).empty()) << os.dump(1);
    EXPECT_FALSE(os.contains("session_id"));
#endif
    EXPECT_EQ(env.value("cuda_device_count", -1), 0);
    EXPECT_EQ(env.value("cuda_device_count_why", "").rfind(kNoDriver, 0), 0u) << env.dump(1);
    // The driver's version reads "unavailable" with the same reason.
    const auto version = env.at("driver").value("cuda_driver_version", json());
    ASSERT_TRUE(version.is_object()) << env.dump(1);
    EXPECT_EQ(version.value("unavailable", "").rfind(kNoDriver, 0), 0u) << version.dump();
    fs::remove(bundle);
}

}  // namespace
}  // namespace pinbench
