// The host-only build (-DPINBENCH_CUDA=OFF; the Windows check under Wine builds this way): the
// CUDA backend says this build has no CUDA (exit 3), bad input is still exit 2, and doctor
// still collects the environment through a child process.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "pinbench/atomic_file.hpp"
#include "pinbench/subprocess.hpp"
#include "test_paths.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using nlohmann::json;

ProcessOutcome run_cli(std::vector<std::string> args) {
    args.insert(args.begin(), PINBENCH_EXE);
    Subprocess p(args, {});
    return p.wait(60s);
}

TEST(HostOnly, RunWithTheCudaBackendSaysThisBuildHasNoCuda) {
    const auto results = fs::temp_directory_path() / "pinbench-host-only.json";
    const auto out =
        run_cli({"run", std::string(PINBENCH_SOURCE_DIR) + "/scenarios/quick.yaml", "-o", results.string()});
    EXPECT_EQ(out.exit_code, 3) << out.output;
    EXPECT_NE(out.output.find("this build has no CUDA"), std::string::npos) << out.output;
    EXPECT_FALSE(fs::exists(results)) << "nothing was measured, so nothing is written";
}

TEST(HostOnly, ABadScenarioIsStillBadInput) {
    const auto out =
        run_cli({"run", std::string(PINBENCH_FIXTURES) + "/scenarios/bad/capacity_unknown_param.yaml"});
    EXPECT_EQ(out.exit_code, 2) << out.output;
}

TEST(HostOnly, DoctorCollectsTheEnvironmentAndSaysWhyNothingIsMeasured) {
    const auto bundle = fs::temp_directory_path() / "pinbench-host-only-doctor.json";
    fs::remove(bundle);
    const auto out = run_cli({"doctor", "--bundle", bundle.string()});
    EXPECT_EQ(out.exit_code, 3) << out.output;
    EXPECT_NE(out.output.find("no CUDA device: this build has no CUDA"), std::string::npos) << out.output;
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
    EXPECT_NE(env.value("cuda_device_count_why", "").find("this build has no CUDA"), std::string::npos);
    fs::remove(bundle);
}

}  // namespace
}  // namespace pinbench
