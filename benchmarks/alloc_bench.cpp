// alloc_bench: what obtaining and releasing host memory costs, per API variant and size,
// and what cudaHostRegister costs on memory already touched versus never touched; the OS's
// first touch of fresh pages is its own row. Host clock (steady_clock), manual time.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "context.hpp"
#include "os_memory.hpp"
#include "pinbench/cuda/host_buffer.hpp"
#include "pinbench/cuda/transfers.hpp"
#include "pinbench/vocabulary/api_variant.hpp"
#include "topology.hpp"

namespace pinbench::bench {
namespace {

using Clock = std::chrono::steady_clock;

double seconds(Clock::duration d) { return std::chrono::duration<double>(d).count(); }

// A geometric subset of 4 KiB .. 4 GiB.
const std::vector<std::size_t> sizes = {4 * KiB, 64 * KiB, 1 * MiB, 16 * MiB, 256 * MiB, 1 * GiB, 4 * GiB};

// Fixed iterations and repetitions per size keep the whole program's time predictable
// (benchmarks/run_all.sh's budget): many cheap iterations for small sizes, one for large.
struct Plan {
    benchmark::IterationCount iterations;
    int repetitions;
    benchmark::TimeUnit unit;
};

Plan plan_for(std::size_t bytes) {
    if (bytes <= 1 * MiB) return {100, 3, benchmark::kMicrosecond};
    if (bytes <= 16 * MiB) return {20, 3, benchmark::kMicrosecond};
    if (bytes <= 256 * MiB) return {2, 3, benchmark::kMillisecond};
    if (bytes <= 1 * GiB) return {1, 3, benchmark::kMillisecond};
    return {1, 2, benchmark::kMillisecond};
}

// Owned by main and shared by the registered benchmarks (no global state).
struct Shared {
    Machine machine;
    std::set<std::string> warmed;  // rows whose untimed warm-up has run
};

void set_alloc_counters(benchmark::State& state, std::size_t bytes, double first_total, double second_total,
                        const char* first_name, const char* second_name) {
    using benchmark::Counter;
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(bytes));
    state.counters[first_name] = Counter(first_total, Counter::kAvgIterations);
    state.counters[second_name] = Counter(second_total, Counter::kAvgIterations);
    state.counters["bytes"] = Counter(static_cast<double>(bytes));
}

// allocate_host_buffer + its destruction (cudaMallocHost/cudaFreeHost, cudaHostAlloc/
// cudaFreeHost, aligned new + touch + cudaHostRegister / cudaHostUnregister + delete, or
// aligned new + touch / delete for pageable).
void alloc_free(benchmark::State& state, Shared& shared, ApiVariant api, std::size_t bytes) {
    if (skip_without_gpu(state, shared.machine)) return;
    try {
        // One untimed round per row, not per repetition, for small sizes: the driver's
        // first-call costs are not what the row measures. Large sizes are covered by the
        // program-wide pre-fault in main (a warm-up there would cost seconds per row).
        if (bytes <= 256 * MiB && shared.warmed.insert(to_string(api) + "/" + size_label(bytes)).second) {
            allocate_host_buffer(api, bytes).reset();
        }
        double alloc_total = 0, free_total = 0;
        for (auto _ : state) {
            const auto t0 = Clock::now();
            auto buffer = allocate_host_buffer(api, bytes);
            const auto t1 = Clock::now();
            buffer.reset();
            const auto t2 = Clock::now();
            alloc_total += seconds(t1 - t0);
            free_total += seconds(t2 - t1);
            state.SetIterationTime(seconds(t2 - t0));
        }
        set_alloc_counters(state, bytes, alloc_total, free_total, "alloc_seconds", "free_seconds");
    } catch (...) {
        skip_with_exception(state);
    }
}

// cudaHostRegister + cudaHostUnregister of OS pages, timed; touching (when asked) and
// mapping the pages are not timed.
void host_register(benchmark::State& state, Shared& shared, bool touched, std::size_t bytes) {
    if (skip_without_gpu(state, shared.machine)) return;
    try {
        std::unique_ptr<OsPages> kept;  // touched: the same pre-faulted pages every iteration
        if (touched) {
            kept = std::make_unique<OsPages>(bytes);
            touch_pages(kept->data(), bytes, os_page_size());
        }
        double register_total = 0, unregister_total = 0;
        for (auto _ : state) {
            std::unique_ptr<OsPages> fresh;  // untouched: new pages every iteration
            if (!touched) fresh = std::make_unique<OsPages>(bytes);
            std::byte* p = touched ? kept->data() : fresh->data();
            const auto t0 = Clock::now();
            HostRegistration registration(p, bytes, flag_none);
            const auto t1 = Clock::now();
            registration.release();
            const auto t2 = Clock::now();
            register_total += seconds(t1 - t0);
            unregister_total += seconds(t2 - t1);
            state.SetIterationTime(seconds(t2 - t0));
        }
        set_alloc_counters(state, bytes, register_total, unregister_total, "register_seconds",
                           "unregister_seconds");
    } catch (...) {
        skip_with_exception(state);
    }
}

// The OS's cost of backing fresh pages: one write per page of never-touched OS memory.
// Needs no GPU.
void first_touch(benchmark::State& state, std::size_t bytes) {
    try {
        const std::size_t page = os_page_size();
        double total = 0;
        for (auto _ : state) {
            OsPages pages(bytes);
            const auto t0 = Clock::now();
            touch_pages(pages.data(), bytes, page);
            const double s = seconds(Clock::now() - t0);
            total += s;
            state.SetIterationTime(s);
        }
        using benchmark::Counter;
        state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) *
                                static_cast<std::int64_t>(bytes));
        state.counters["touch_seconds"] = Counter(total, Counter::kAvgIterations);
        state.counters["bytes"] = Counter(static_cast<double>(bytes));
    } catch (...) {
        skip_with_exception(state);
    }
}

void apply(benchmark::internal::Benchmark* b, std::size_t bytes) {
    const Plan p = plan_for(bytes);
    b->UseManualTime()
        ->Iterations(p.iterations)
        ->Repetitions(p.repetitions)
        ->ReportAggregatesOnly(true)
        ->Unit(p.unit);
}

void register_all(const std::shared_ptr<Shared>& shared) {
    for (const ApiVariant api : all_api_variants()) {
        for (const std::size_t bytes : sizes) {
            const std::string name = "alloc_free/" + to_string(api) + "/" + size_label(bytes);
            apply(benchmark::RegisterBenchmark(
                      name.c_str(),
                      [shared, api, bytes](benchmark::State& s) { alloc_free(s, *shared, api, bytes); }),
                  bytes);
        }
    }
    for (const bool touched : {true, false}) {
        for (const std::size_t bytes : sizes) {
            const std::string name =
                std::string("host_register/") + (touched ? "touched/" : "untouched/") + size_label(bytes);
            apply(benchmark::RegisterBenchmark(name.c_str(),
                                               [shared, touched, bytes](benchmark::State& s) {
                                                   host_register(s, *shared, touched, bytes);
                                               }),
                  bytes);
        }
    }
    for (const std::size_t bytes : sizes) {
        const std::string name = "first_touch/" + size_label(bytes);
        apply(benchmark::RegisterBenchmark(name.c_str(),
                                           [bytes](benchmark::State& s) { first_touch(s, bytes); }),
              bytes);
    }
}

// On a virtual machine the first touch of guest RAM can cost far more than the driver's
// pinning; touching (and freeing) the largest size once before any timing takes that out of
// every row except first_touch, which measures fresh pages on purpose.
void prefault_once(std::size_t bytes) {
    try {
        OsPages pages(bytes);
        touch_pages(pages.data(), bytes, os_page_size());
        benchmark::AddCustomContext("alloc.prefault",
                                    size_label(bytes) + " of OS pages touched and freed before timing");
    } catch (const std::exception& e) {
        benchmark::AddCustomContext("alloc.prefault", std::string("not done: ") + e.what());
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
    prefault_once(sizes.back());
    register_all(shared);
    benchmark::RunSpecifiedBenchmarks();
    // Free the buffers while the CUDA runtime is still up, not in static destruction.
    benchmark::ClearRegisteredBenchmarks();
    shared.reset();
    benchmark::Shutdown();
    return 0;
}
