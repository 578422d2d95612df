// transfer_bench: host<->device bandwidth per kind of host memory and size, timed by CUDA
// events on one stream (manual time), with each row's fraction of the PCIe link's
// theoretical rate. Small sizes rotate over slices of a 512 MiB region so that neither side
// serves a transfer from a cache the previous one warmed.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "context.hpp"
#include "cuda/bench_timing.hpp"
#include "pinbench/cuda/device.hpp"
#include "pinbench/cuda/host_buffer.hpp"
#include "pinbench/vocabulary/api_variant.hpp"
#include "topology.hpp"

namespace pinbench::bench {
namespace {

constexpr std::size_t rotation_region = 512 * MiB;
constexpr int repetitions = 7;

const std::vector<std::size_t> sizes = {1 * MiB, 4 * MiB, 16 * MiB, 64 * MiB, 256 * MiB, 1 * GiB, 4 * GiB};

// How a row moves data: a copy in one direction, or a kernel reading mapped host memory.
enum class Op { h2d, d2h, kernel_read };

const char* op_name(Op op) {
    switch (op) {
        case Op::h2d:
            return "h2d";
        case Op::d2h:
            return "d2h";
        case Op::kernel_read:
            return "kernel_read";
    }
    return "?";
}

struct Kind {
    const char* name;
    ApiVariant api;
    std::vector<Op> ops;
};

// pinned = cudaMallocHost; write_combined is for the CPU writing and the GPU reading only,
// hence H2D only; mapped is read in place by a kernel (zero copy).
const std::vector<Kind> kinds = {
    {"pinned", {ApiFamily::malloc_host, flag_none}, {Op::h2d, Op::d2h}},
    {"pageable", {ApiFamily::pageable, flag_none}, {Op::h2d, Op::d2h}},
    {"write_combined", {ApiFamily::host_alloc, flag_write_combined}, {Op::h2d}},
    {"mapped", {ApiFamily::host_alloc, flag_mapped}, {Op::kernel_read}},
};

// Slices a row rotates over: at least 2 below 512 MiB, so consecutive iterations touch
// different memory; one for the large sizes (they exceed every cache anyway).
std::size_t rotation_slices(std::size_t bytes) {
    return bytes < rotation_region ? std::max<std::size_t>(2, rotation_region / bytes) : 1;
}

// Enough iterations per repetition to move about 256 MiB, so small rows are not one noisy
// sample; one iteration from 256 MiB up.
benchmark::IterationCount iterations_for(std::size_t bytes) {
    return static_cast<benchmark::IterationCount>(std::max<std::size_t>(1, 256 * MiB / bytes));
}

// Buffers shared by the rows, owned by main. The host region is a one-entry cache: rows are
// registered so that those using the same memory kind and region size are consecutive,
// and repetitions reuse it instead of pinning gigabytes again each time.
class Shared {
public:
    Machine machine;

    HostBuffer& host(ApiVariant api, std::size_t bytes, Op first_use, TimedStream& stream) {
        if (!host_ || host_->api() != api || host_->size() != bytes) {
            host_.reset();  // free the previous region first: peak pinned memory stays one region
            host_ = allocate_host_buffer(api, bytes);
            next_slice_ = 0;
            // Untimed first use, the way the rows use it: some drivers build mappings at the
            // first submission.
            stream.start();
            if (first_use == Op::kernel_read) {
                stream.read_through(host_->device_pointer(), bytes);
            } else {
                stream.copy(device(bytes).data(), host_->data(), bytes, Direction::host_to_device);
            }
            (void)stream.stop();
        }
        return *host_;
    }

    DeviceBuffer& device(std::size_t bytes) {
        if (!device_ || device_->size() < bytes) {
            device_.reset();
            device_ = std::make_unique<DeviceBuffer>(std::max(bytes, sizes.back()));
        }
        return *device_;
    }

    TimedStream& stream() {
        if (!stream_) stream_ = std::make_unique<TimedStream>();
        return *stream_;
    }

    // Slice index for the next iteration; carries on across repetitions.
    std::size_t next_slice(std::size_t slices) { return next_slice_++ % slices; }

private:
    std::unique_ptr<HostBuffer> host_;
    std::unique_ptr<DeviceBuffer> device_;
    std::unique_ptr<TimedStream> stream_;
    std::size_t next_slice_ = 0;
};

void transfer(benchmark::State& state, Shared& shared, const Kind& kind, Op op, std::size_t bytes) {
    if (skip_without_gpu(state, shared.machine)) return;
    try {
        const std::size_t slices = rotation_slices(bytes);
        TimedStream& stream = shared.stream();
        HostBuffer& host = shared.host(kind.api, slices * bytes, op, stream);
        DeviceBuffer& device = shared.device(slices * bytes);
        auto* dev = static_cast<std::byte*>(device.data());
        for (auto _ : state) {
            const std::size_t offset = shared.next_slice(slices) * bytes;
            stream.start();
            switch (op) {
                case Op::h2d:
                    stream.copy(dev + offset, host.data() + offset, bytes, Direction::host_to_device);
                    break;
                case Op::d2h:
                    stream.copy(host.data() + offset, dev + offset, bytes, Direction::device_to_host);
                    break;
                case Op::kernel_read:
                    stream.read_through(static_cast<std::byte*>(host.device_pointer()) + offset, bytes);
                    break;
            }
            state.SetIterationTime(stream.stop());
        }
        set_transfer_counters(state, bytes, shared.machine);
        state.counters["rotation_slices"] = benchmark::Counter(static_cast<double>(slices));
    } catch (...) {
        skip_with_exception(state);
    }
}

void register_all(const std::shared_ptr<Shared>& shared) {
    // Kind, then size, then operation: consecutive rows share the host region.
    for (const Kind& kind : kinds) {
        for (const std::size_t bytes : sizes) {
            for (const Op op : kind.ops) {
                const std::string name =
                    std::string("transfer/") + kind.name + "/" + op_name(op) + "/" + size_label(bytes);
                benchmark::RegisterBenchmark(name.c_str(),
                                             [shared, &kind, op, bytes](benchmark::State& s) {
                                                 transfer(s, *shared, kind, op, bytes);
                                             })
                    ->UseManualTime()
                    ->Iterations(iterations_for(bytes))
                    ->Repetitions(repetitions)
                    ->ReportAggregatesOnly(true)
                    ->Unit(bytes >= 256 * MiB ? benchmark::kMillisecond : benchmark::kMicrosecond);
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
    benchmark::AddCustomContext("transfer.timing",
                                "CUDA events around each transfer on one non-blocking stream");
    benchmark::AddCustomContext(
        "transfer.rotation", "sizes below 512 MiB rotate over max(2, 512 MiB / size) slices of one region");
    register_all(shared);
    benchmark::RunSpecifiedBenchmarks();
    // Free the buffers while the CUDA runtime is still up, not in static destruction.
    benchmark::ClearRegisteredBenchmarks();
    shared.reset();
    benchmark::Shutdown();
    return 0;
}
