// CLI11 validators for pinbench's options.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>

namespace pinbench::cli {

// Sizes with units ("256MiB").
struct SizeValidator : CLI::Validator {
    SizeValidator();
    // ... from `min` to `max` bytes.
    SizeValidator(std::uint64_t min, std::uint64_t max);
};

// Every floating-point option: a finite number from `min` to `max` (above `min` when
// `min_excluded`). CLI11's own Range lets NaN through and its messages quote bounds such as the
// largest double with 300 digits.
struct FiniteNumber : CLI::Validator {
    FiniteNumber(double min, double max, bool min_excluded = false);
};

}  // namespace pinbench::cli
