// The measuring side of every scenario kind (docs/kinds.md): one repeat, in the child process.
#pragma once

#include "pinbench/nvml.hpp"
#include "pinbench/plan.hpp"
#include "pinbench/results.hpp"

namespace pinbench::kinds {

// Runs one repeat of `run` by its kind. Throws UnsupportedError (the repeat is WAIVED with
// the reason), CudaError or other exceptions (the repeat FAILED); InputError for an unknown kind.
RepeatRecord measure(const PlannedRun& run, const Nvml* nvml);

// One function per kind, each in its own file under harness/src/kinds/.
RepeatRecord measure_overhead(const PlannedRun& run, const Nvml* nvml);
RepeatRecord measure_capacity(const PlannedRun& run, const Nvml* nvml);
RepeatRecord measure_sweep(const PlannedRun& run, const Nvml* nvml);
RepeatRecord measure_multi_gpu(const PlannedRun& run, const Nvml* nvml);
RepeatRecord measure_workers(const PlannedRun& run, const Nvml* nvml);
RepeatRecord measure_churn(const PlannedRun& run, const Nvml* nvml);
RepeatRecord measure_fragmentation(const PlannedRun& run, const Nvml* nvml);
RepeatRecord measure_shared(const PlannedRun& run, const Nvml* nvml);
RepeatRecord measure_register_window(const PlannedRun& run, const Nvml* nvml);

}  // namespace pinbench::kinds
