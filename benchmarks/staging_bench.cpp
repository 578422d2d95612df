// staging_bench: StagingRing bandwidth at 1 GiB and 4 GiB across K slots, C bytes per slot
// and T copy threads (the curve of bandwidth against pinned bytes K*C), next to direct
// cudaMemcpy from fully pinned and from pageable memory measured the same way. Host clock
// around each whole transfer (the ring is host-driven), manual time.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "context.hpp"
#include "cuda/bench_timing.hpp"
#include "pinbench/cuda/device.hpp"
#include "pinbench/cuda/host_buffer.hpp"
#include "pinbench/vocabulary/api_variant.hpp"
#include "staging/staging_ring.hpp"
#include "topology.hpp"

namespace pinbench::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

constexpr std::size_t largest = 4 * GiB;

const std::vector<std::size_t> slot_counts = {2, 3, 4, 8};
const std::vector<std::size_t> slot_sizes = {1 * MiB, 2 * MiB, 4 * MiB, 8 * MiB, 16 * MiB, 32 * MiB};
const std::vector<std::size_t> thread_counts = {1, 2, 4, 8, 16};

// 16 threads only where the curve is decided (at most 64 MiB pinned, slots of 8 MiB or more):
// the 1 GiB target was missed with 8 threads, and the GPU machine has 16 cores.
bool registered(const StagingConfig& c) {
    return c.copy_threads < 16 || (c.slot_bytes >= 8 * MiB && c.slots * c.slot_bytes <= 64 * MiB);
}

// The grid is large; to keep the program within run_all.sh's budget, 4 GiB is measured
// where the target lies (K*C <= 64 MiB) with slots of 4 MiB or more and T >= 4, and
// T = 1, 2 (the slow contrast: a naive ring) get 3 repetitions instead of 7.
bool measure_4gib(const StagingConfig& c) {
    return c.copy_threads >= 4 && c.slot_bytes >= 4 * MiB && c.slots * c.slot_bytes <= 64 * MiB;
}
int repetitions_for(const StagingConfig& c) { return c.copy_threads >= 4 ? 7 : 3; }

// Buffers shared by the rows, owned by main: one pageable host buffer (source of H2D,
// destination of D2H), one device buffer, a fully pinned buffer for the baseline rows and
// the ring of the current configuration (rows of one configuration are consecutive).
class Shared {
public:
    Machine machine;

    HostBuffer& pageable() {
        if (!pageable_) pageable_ = allocate_host_buffer({ApiFamily::pageable, flag_none}, largest);
        return *pageable_;
    }
    HostBuffer& pinned() {
        if (!pinned_) pinned_ = allocate_host_buffer({ApiFamily::malloc_host, flag_none}, largest);
        return *pinned_;
    }
    void drop_pinned() { pinned_.reset(); }
    DeviceBuffer& device() {
        if (!device_) device_ = std::make_unique<DeviceBuffer>(largest);
        return *device_;
    }
    TimedStream& stream() {
        if (!stream_) stream_ = std::make_unique<TimedStream>();
        return *stream_;
    }

    // True the first time `key` is asked for.
    bool first_use(const std::string& key) { return used_.insert(key).second; }

    StagingRing& ring(const StagingConfig& c) {
        const bool same = ring_ && ring_->config().slots == c.slots &&
                          ring_->config().slot_bytes == c.slot_bytes &&
                          ring_->config().copy_threads == c.copy_threads;
        if (!same) {
            ring_.reset();  // only one ring's pinned slots exist at a time
            ring_ = std::make_unique<StagingRing>(c);
            // Untimed: the first pass wakes the copy threads and touches every slot.
            ring_->to_device(device().data(), pageable().data(), c.slots * c.slot_bytes);
        }
        return *ring_;
    }

private:
    std::unique_ptr<HostBuffer> pageable_;
    std::unique_ptr<HostBuffer> pinned_;
    std::unique_ptr<DeviceBuffer> device_;
    std::unique_ptr<TimedStream> stream_;
    std::unique_ptr<StagingRing> ring_;
    std::set<std::string> used_;
};

void ring_row(benchmark::State& state, Shared& shared, StagingConfig config, Direction dir,
              std::size_t bytes) {
    if (skip_without_gpu(state, shared.machine)) return;
    try {
        shared.drop_pinned();  // the baseline's 4 GiB stay pinned only while its rows run
        StagingRing& ring = shared.ring(config);
        std::byte* host = shared.pageable().data();
        void* device = shared.device().data();
        for (auto _ : state) {
            const auto t0 = Clock::now();
            if (dir == Direction::host_to_device) {
                ring.to_device(device, host, bytes);
            } else {
                ring.to_host(host, device, bytes);
            }
            state.SetIterationTime(seconds(Clock::now() - t0));
        }
        set_transfer_counters(state, bytes, shared.machine);
        using benchmark::Counter;
        state.counters["pinned_bytes"] = Counter(static_cast<double>(config.slots * config.slot_bytes));
        state.counters["slots"] = Counter(static_cast<double>(config.slots));
        state.counters["slot_bytes"] = Counter(static_cast<double>(config.slot_bytes));
        state.counters["copy_threads"] = Counter(static_cast<double>(config.copy_threads));
    } catch (...) {
        skip_with_exception(state);
    }
}

// Direct cudaMemcpyAsync + synchronisation, timed by the same host clock as the ring rows,
// so "fraction of full-pinned bandwidth" compares like with like.
void baseline_row(benchmark::State& state, Shared& shared, bool pinned, Direction dir, std::size_t bytes) {
    if (skip_without_gpu(state, shared.machine)) return;
    try {
        HostBuffer& host = pinned ? shared.pinned() : shared.pageable();
        void* device = shared.device().data();
        TimedStream& stream = shared.stream();
        if (shared.first_use(std::string(pinned ? "pinned/" : "pageable/") +
                             (dir == Direction::host_to_device ? "h2d" : "d2h"))) {
            stream.start();  // untimed, once per buffer and direction, not per repetition
            if (dir == Direction::host_to_device) {
                stream.copy(device, host.data(), bytes, dir);
            } else {
                stream.copy(host.data(), device, bytes, dir);
            }
            (void)stream.stop();
        }
        for (auto _ : state) {
            const auto t0 = Clock::now();
            stream.start();
            if (dir == Direction::host_to_device) {
                stream.copy(device, host.data(), bytes, dir);
            } else {
                stream.copy(host.data(), device, bytes, dir);
            }
            (void)stream.stop();
            state.SetIterationTime(seconds(Clock::now() - t0));
        }
        set_transfer_counters(state, bytes, shared.machine);
        state.counters["pinned_bytes"] = benchmark::Counter(pinned ? static_cast<double>(bytes) : 0.0);
    } catch (...) {
        skip_with_exception(state);
    }
}

const char* dir_name(Direction d) { return d == Direction::host_to_device ? "h2d" : "d2h"; }

void register_all(const std::shared_ptr<Shared>& shared) {
    const Direction dirs[] = {Direction::host_to_device, Direction::device_to_host};
    // Baselines first, so the fully pinned 4 GiB is freed before any ring exists.
    for (const bool pinned : {true, false}) {
        for (const std::size_t bytes : {1 * GiB, 4 * GiB}) {
            for (const Direction dir : dirs) {
                const std::string name = std::string("staging_baseline/") +
                                         (pinned ? "pinned/" : "pageable/") + dir_name(dir) + "/" +
                                         size_label(bytes);
                benchmark::RegisterBenchmark(name.c_str(),
                                             [shared, pinned, dir, bytes](benchmark::State& s) {
                                                 baseline_row(s, *shared, pinned, dir, bytes);
                                             })
                    ->UseManualTime()
                    ->Iterations(1)
                    ->Repetitions(7)
                    ->ReportAggregatesOnly(true)
                    ->Unit(benchmark::kMillisecond);
            }
        }
    }
    // Configuration outermost: one ring per configuration, reused by its rows.
    for (const std::size_t t : thread_counts) {
        for (const std::size_t k : slot_counts) {
            for (const std::size_t c : slot_sizes) {
                const StagingConfig config{k, c, t, 0};
                if (!registered(config)) continue;
                for (const std::size_t bytes : {1 * GiB, 4 * GiB}) {
                    if (bytes == 4 * GiB && !measure_4gib(config)) continue;
                    for (const Direction dir : dirs) {
                        const std::string name = std::string("staging/") + dir_name(dir) + "/" +
                                                 size_label(bytes) + "/K:" + std::to_string(k) +
                                                 "/C:" + size_label(c) + "/T:" + std::to_string(t);
                        benchmark::RegisterBenchmark(name.c_str(),
                                                     [shared, config, dir, bytes](benchmark::State& s) {
                                                         ring_row(s, *shared, config, dir, bytes);
                                                     })
                            ->UseManualTime()
                            ->Iterations(1)
                            ->Repetitions(repetitions_for(config))
                            ->ReportAggregatesOnly(true)
                            ->Unit(benchmark::kMillisecond);
                    }
                }
            }
        }
    }
}

}  // namespace
}  // namespace pinbench::bench

int main(int argc, char** argv) {
    using namespace pinbench::bench;
    benchmark::Initialize(&argc, argv);
    if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
    auto shared = std::make_shared<Shared>();
    shared->machine = prepare_machine(0);
    benchmark::AddCustomContext(
        "staging.timing", "host steady_clock around each whole transfer (ring and baseline rows alike)");
    benchmark::AddCustomContext("staging.defaults",
                                "StagingConfig{} = K " + std::to_string(pinbench::StagingConfig{}.slots) +
                                    ", C " + size_label(pinbench::StagingConfig{}.slot_bytes) + ", T " +
                                    std::to_string(pinbench::StagingConfig{}.copy_threads));
    register_all(shared);
    benchmark::RunSpecifiedBenchmarks();
    // Free the buffers while the CUDA runtime is still up, not in static destruction.
    benchmark::ClearRegisteredBenchmarks();
    shared.reset();
    benchmark::Shutdown();
    return 0;
}
