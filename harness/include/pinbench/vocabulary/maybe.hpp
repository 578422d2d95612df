// A value or the reason it could not be read: what NVML, CUDA and the OS give the environment
// record (pinbench/results/environment_record.hpp), which writes the reason as {"unavailable": why}.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace pinbench {

template <typename T>
struct Maybe {
    std::optional<T> value;
    std::string why;  // set when value is empty
    static Maybe of(T v) { return {std::move(v), {}}; }
    static Maybe none(std::string reason) { return {std::nullopt, std::move(reason)}; }
};

}  // namespace pinbench
