// The child side of an isolated repeat: `pinbench __child --request FILE`.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>

#include "pinbench/cuda/nvml.hpp"

namespace pinbench {

// A mode a stage above the runner serves in the same child process (the pin budget's phases,
// budget/budget_child.hpp): the runner knows its name only from here, so it never includes that
// stage. `serve` returns the response's "data"; a thrown error fails the repeat as any mode's.
struct ChildMode {
    std::string_view name;
    nlohmann::json (*serve)(const nlohmann::json& request, const Nvml* nvml);
};

// Runs the request, writes the response file it names, returns the process exit code
// (0 whenever a response was written, even for a failed measurement). `more_modes`: the modes
// beyond the runner's own (run/protocol.hpp's child_mode), which the program hands in.
int child_main(const std::string& request_path, std::span<const ChildMode> more_modes = {});

}  // namespace pinbench
