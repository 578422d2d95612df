// The measuring side of every scenario kind (docs/kinds.md): one repeat, in the child process.
#pragma once

#include "pinbench/nvml.hpp"
#include "pinbench/plan.hpp"
#include "pinbench/results.hpp"

namespace pinbench::kinds {

// Runs one repeat of `run` by its kind's measurement (KindSpec::measure). Throws
// UnsupportedError (the repeat is WAIVED with the reason), CudaError or other exceptions (the
// repeat FAILED); InputError for an unknown kind.
RepeatRecord measure(const PlannedRun& run, const Nvml* nvml);

}  // namespace pinbench::kinds
