// The mark of the test-double CUDA driver and NVML (harness/tests/doubles/driver): its device
// name and its driver release carry it, so results it produced say so wherever they go.
// `store add` refuses them and pinreport never takes them as a baseline; reports/pinreport/
// schema.py holds the same string (reports/tests/test_schema.py checks they agree).
#pragma once

#include <string_view>

namespace pinbench {

inline constexpr const char* test_double_marker = "test-double";

// True when a device name or a driver release is the test double's.
inline bool names_test_double(std::string_view text) {
    return text.find(test_double_marker) != std::string_view::npos;
}

}  // namespace pinbench
