// The cost of one probe key between two labelled snapshots of a repeat: the one computation
// behind every memory metric (run_metrics.cpp for the generic ones, each kind's derive for its own).
#pragma once

#include <optional>
#include <string>

#include "pinbench/results/results.hpp"

namespace pinbench {

// Bytes `key` says were consumed from snapshot `from` to snapshot `to` (positive: consumed,
// whatever the key's direction); nullopt when either snapshot or either reading is missing.
std::optional<double> snapshot_cost(const RepeatRecord& r, const std::string& from, const std::string& to,
                                    const std::string& key);

}  // namespace pinbench
