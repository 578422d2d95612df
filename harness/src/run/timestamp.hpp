// Wall-clock timestamps for records.
#pragma once

#include <string>

namespace pinbench {

// Now, as ISO 8601 UTC ("2026-11-30T01:25:39Z").
std::string utc_now();

}  // namespace pinbench
