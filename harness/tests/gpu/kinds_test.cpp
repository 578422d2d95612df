// Scenario kinds on a real GPU, where the answer depends on the machine: what it cannot do
// ends WAIVED with the reason, and the measuring helpers find what they should.
#include <gtest/gtest.h>

#include <filesystem>

#include "gpu_available.hpp"
#include "pinbench/cuda/device_capacity.hpp"
#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/platform/subprocess.hpp"
#include "pinbench/results/results.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

ResultsDocument run_scenario(const std::string& name, const std::string& yaml) {
    const fs::path dir = fs::temp_directory_path();
    const fs::path scenario = dir / ("pinbench-kinds-" + name + ".yaml");
    const fs::path out = dir / ("pinbench-kinds-" + name + ".json");
    write_file_atomically(scenario.string(), yaml);
    Subprocess p({PINBENCH_EXE, "run", scenario.string(), "-o", out.string()}, {});
    const auto outcome = p.wait(std::chrono::minutes(5));
    EXPECT_EQ(outcome.kind, ProcessOutcome::Kind::exited) << outcome.output;
    ResultsDocument doc = load_results(out.string());
    fs::remove(scenario);
    fs::remove(out);
    return doc;
}

TEST(KindsOnGpu, MachineLimitsAreWaivedWithTheReason) {
    PINBENCH_REQUIRE_GPU();
    std::string why;
    const int gpus = cuda_device_count(&why);
    const std::string too_many = std::to_string(gpus + 1);
    const ResultsDocument doc = run_scenario("limits", R"(schema_version: 2
defaults: {repeats: 2}
scenarios:
  - {name: f-too-large, kind: capacity, api: cudaMallocHost, size: 64MiB, params: {free_target: 64TiB}}
  - {name: too-many-gpus, kind: multi_gpu, api: cudaMallocHost, size: 64MiB, gpus: )" +
                                                           too_many + R"(}
  - {name: too-much-to-pin, kind: overhead, api: cudaMallocHost, size: 64TiB}
)");
    ASSERT_EQ(doc.runs.size(), 3u);
    for (const auto& run : doc.runs) {
        EXPECT_EQ(run.status, Status::waived) << run.run.id << ": " << run.reason;
        EXPECT_TRUE(run.metrics.empty()) << run.run.id << ": waived is never a 0";
        EXPECT_LE(run.repeats.size(), 1u) << run.run.id << ": the first waived repeat ends the run";
    }
    EXPECT_NE(doc.runs[0].reason.find("free_target 64TiB is not below device 0's memory"), std::string::npos)
        << doc.runs[0].reason;
    EXPECT_NE(doc.runs[1].reason.find("needs " + too_many + " GPU(s)"), std::string::npos)
        << doc.runs[1].reason;
    EXPECT_NE(doc.runs[2].reason.find("more"), std::string::npos) << doc.runs[2].reason;
}

TEST(KindsOnGpu, LargestBlockSearchFindsAKnownHole) {
    PINBENCH_REQUIRE_GPU();
    const std::uint64_t MiB = 1 << 20;
    // Leave exactly 1 GiB free (within 2 MiB), then the largest block must be just under it.
    DeviceFiller filler(1024 * MiB, 2 * MiB);
    const BlockSearch found = largest_device_block(filler.free_after_fill() + 2 * MiB, 2 * MiB, true);
    EXPECT_LE(found.largest, filler.free_after_fill());
    EXPECT_GE(found.largest, filler.free_after_fill() - 64 * MiB)
        << "free memory is one block on an idle GPU";
    EXPECT_EQ(found.largest % (2 * MiB), 0u);
    EXPECT_GT(found.read_gbps, 100.0) << "device memory reads at hundreds of GB/s or more";
    EXPECT_EQ(filler.intact(), "");
}

}  // namespace
}  // namespace pinbench
