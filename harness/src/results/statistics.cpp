#include "pinbench/results/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace pinbench {

namespace {

// Median of values that are already sorted and not empty.
double sorted_median(const std::vector<double>& sorted) {
    const std::size_t n = sorted.size();
    const std::size_t mid = n / 2;
    if (n % 2 == 1) return sorted[mid];
    // Written as a + (b - a) / 2 so two huge values of one sign cannot overflow to inf.
    return sorted[mid - 1] + (sorted[mid] - sorted[mid - 1]) / 2;
}

// |v| as unsigned, defined for LLONG_MIN too.
unsigned long long magnitude(long long v) {
    const auto u = static_cast<unsigned long long>(v);
    return v < 0 ? 0ULL - u : u;
}

}  // namespace

double median(std::vector<double> samples) {
    std::sort(samples.begin(), samples.end());
    return sorted_median(samples);
}

std::optional<Summary> summarize(std::vector<double> samples) {
    if (samples.empty()) return std::nullopt;
    std::sort(samples.begin(), samples.end());
    Summary s;
    s.n = samples.size();
    s.min = samples.front();
    s.max = samples.back();
    s.median = sorted_median(samples);
    std::vector<double> deviations;
    deviations.reserve(samples.size());
    for (double x : samples) deviations.push_back(std::fabs(x - s.median));
    s.mad = median(std::move(deviations));
    return s;
}

long long observed_granule(const std::vector<long long>& values, long long cap) {
    if (cap < 1) cap = 1;
    bool any = false;
    unsigned long long lowest = 0;  // lowest set bit over all non-zero values
    for (long long v : values) {
        if (v == 0) continue;
        const unsigned long long u = magnitude(v);
        const unsigned long long bit = u & (~u + 1);
        lowest = any ? std::min(lowest, bit) : bit;
        any = true;
    }
    if (!any) return cap;
    // The largest power of two not above cap; a granule can never exceed it.
    unsigned long long limit = 1;
    while (limit <= static_cast<unsigned long long>(cap) / 2) limit *= 2;
    return static_cast<long long>(std::min(lowest, limit));
}

void to_json(nlohmann::json& j, const Summary& s) {
    j = nlohmann::json{{"n", s.n}, {"median", s.median}, {"min", s.min}, {"max", s.max}, {"mad", s.mad}};
}

std::optional<LinearFit> linear_fit(const std::vector<double>& x, const std::vector<double>& y) {
    if (x.size() != y.size() || x.size() < 2) return std::nullopt;
    const double n = static_cast<double>(x.size());
    double mx = 0, my = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        mx += x[i] / n;
        my += y[i] / n;
    }
    double sxx = 0, sxy = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
        sxx += (x[i] - mx) * (x[i] - mx);
        sxy += (x[i] - mx) * (y[i] - my);
    }
    if (sxx == 0) return std::nullopt;
    const double slope = sxy / sxx;
    return LinearFit{slope, my - slope * mx};
}

}  // namespace pinbench
