// What every benchmark program does before registering its benchmarks: place itself on the
// GPU's NUMA node, open the device, and write the machine facts into Google Benchmark's JSON
// context (benchmark::AddCustomContext), plus the counters the programs share.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

#include "pinbench/cuda/device.hpp"

namespace pinbench::bench {

// Version of the custom context keys below; bump when a key changes meaning.
inline constexpr int context_schema_version = 1;

struct Machine {
    int device = 0;
    // Theoretical one-direction link rate after encoding (NVML max generation and width);
    // empty when unknown, and then no row has a fraction_of_link counter.
    std::optional<double> link_bytes_per_second;
    std::string no_gpu_reason;  // non-empty: no device; every benchmark reports this error
    std::unique_ptr<DeviceContext> context;

    bool has_gpu() const { return context != nullptr; }
};

// Binds this thread to the GPU's local CPUs (see numa.hpp), creates the CUDA context on
// `device` (CUDA index; the NVML index is assumed equal, as with CUDA_DEVICE_ORDER=PCI_BUS_ID
// and no CUDA_VISIBLE_DEVICES remapping, and the context says whether the PCI addresses
// agree) and adds the custom context keys:
//   pinbench.context_schema_version, driver.release, driver.model, driver.model_pending,
//   driver.cuda_version, gpu.name, gpu.pci_bus_id, gpu.nvml_cuda_match, pcie.gen_current,
//   pcie.gen_max, pcie.width_current, pcie.width_max, pcie.link_bytes_per_second,
//   pcie.link_basis, numa.gpu_node, numa.local_cpus, numa.placed, numa.placement,
//   os.page_backing, cuda.environment (cuda_environment_json, JSON), gpu.nvml (nvml_device_json, JSON).
// A value that cannot be read is "not available: <reason>". Call after
// benchmark::Initialize and before registering benchmarks. Never throws for a missing GPU.
Machine prepare_machine(int device);

// Skips the benchmark with the machine's reason when there is no GPU; true when skipped.
bool skip_without_gpu(benchmark::State& state, const Machine& machine);

// Counters of a row that moves `bytes_per_iteration` each iteration: bytes_per_second (via
// SetBytesProcessed), GBps (1e9 bytes/s), fraction_of_link (when the link rate is known) and
// bytes (the transfer size). Rates use the benchmark's time (manual time where used).
void set_transfer_counters(benchmark::State& state, std::size_t bytes_per_iteration, const Machine& machine);

// A benchmark body threw: record the error on the row instead of stopping the program
// (e.g. cudaErrorMemoryAllocation: the size cannot be pinned here).
void skip_with_exception(benchmark::State& state);

}  // namespace pinbench::bench
