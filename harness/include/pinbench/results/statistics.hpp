// Pure statistics over samples. Edge cases (n = 0, 1, 2) are defined and unit-tested.
#pragma once

#include <cstddef>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <vector>

namespace pinbench {

struct Summary {
    std::size_t n = 0;
    double median = 0, min = 0, max = 0;
    double mad = 0;  // median absolute deviation from the median (unscaled)
};

// Empty for n = 0. n = 1: median = min = max, mad = 0. Even n: mean of the two middle values.
std::optional<Summary> summarize(std::vector<double> samples);
double median(std::vector<double> samples);  // precondition: not empty

// Largest power of two (>= 1, <= cap) that divides every value: the observed quantisation
// step of a probe. 0 values are ignored; returns cap when no non-zero value is given.
long long observed_granule(const std::vector<long long>& values, long long cap);

// Ordinary least squares y = intercept + slope * x. nullopt when fewer than two points or
// every x is equal (no slope to speak of); sizes must match.
struct LinearFit {
    double slope = 0, intercept = 0;
};
std::optional<LinearFit> linear_fit(const std::vector<double>& x, const std::vector<double>& y);

void to_json(nlohmann::json& j, const Summary& s);

}  // namespace pinbench
