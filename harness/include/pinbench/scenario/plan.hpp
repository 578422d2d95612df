// Plan: a scenario file expanded into runs (the cartesian product of its lists).
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "pinbench/scenario/scenario.hpp"

namespace pinbench {

// One point of the matrix: what a child process measures, `repeats` times.
struct PlannedRun {
    std::string id;  // "<scenario>/<api>/<size>/x<count>/g<gpus>", unique in a plan
    std::string scenario;
    std::string kind;
    ApiVariant api;
    std::uint64_t size = 0;  // bytes per buffer
    int count = 1;           // buffers held at once
    int gpus = 1;
    int repeats = 1;
    double timeout_s = 120;
    std::vector<std::string> driver_models;  // empty: any
    // Kind parameters (docs/kinds.md), one value per axis parameter: sizes as integer bytes,
    // choices as strings, counts as integers. Empty object for `overhead`.
    nlohmann::json params = nlohmann::json::object();
};

struct Plan {
    std::string source;  // scenario file path
    std::vector<PlannedRun> runs;
};

// Expansion order: scenarios in file order; within one, api, then size, then count, then gpus.
Plan expand(const ScenarioFile& file);

// Human-readable table for `pinbench plan` (one line per run, then totals).
std::string describe(const Plan& plan);

nlohmann::json to_json(const PlannedRun& run);
PlannedRun planned_run_from_json(const nlohmann::json& j);  // throws InputError on bad input

}  // namespace pinbench
