// Snapshot readers that report errors at a JSON path inside a larger document (the results
// file). The public from_json overloads in pinbench/probes/snapshot.hpp use them with a short path.
#pragma once

#include "json/json_reader.hpp"
#include "pinbench/probes/snapshot.hpp"

namespace pinbench::detail {

Reading reading_from(const JsonAt& at);
Snapshot snapshot_from(const JsonAt& at);

}  // namespace pinbench::detail
