// How many generated inputs a property test tries (docs/fuzzing.md, "Property tests"): its base
// count in every CTest run, times PINBENCH_PROPERTY_SCALE where that is set (1 to 1000; the
// nightly's is 20, ci/nightly.sh --property-scale). The seed stays: a larger scale tries the same
// first inputs, then more, so a failure is reproduced with the scale it was found at.
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace pinbench::testing_support {

inline int property_runs(int base) {
    const char* text = std::getenv("PINBENCH_PROPERTY_SCALE");
    if (text == nullptr || *text == '\0') return base;
    char* end = nullptr;
    const long scale = std::strtol(text, &end, 10);
    if (*end != '\0' || scale < 1 || scale > 1000) {
        throw std::invalid_argument("PINBENCH_PROPERTY_SCALE must be a whole number from 1 to 1000, not '" +
                                    std::string(text) + "'");
    }
    return base * static_cast<int>(scale);
}

}  // namespace pinbench::testing_support
