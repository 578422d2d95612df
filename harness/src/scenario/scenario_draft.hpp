// One scenario while its keys are read (scenario_file.cpp), its parameters (kind_params.cpp) and
// its claims (expect_claims.cpp): the values so far and where each came from, for the messages.
#pragma once

#include <yaml-cpp/yaml.h>

#include <array>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "pinbench/scenario/scenario.hpp"
#include "scenario/scenario_values.hpp"

namespace pinbench {

// The driver models a scenario may name (`driver_models`, and each `expect` entry's key).
inline constexpr std::array<std::string_view, 4> kDriverModels{"WDDM", "TCC", "MCDM", "linux"};

// Per-scenario state while reading: the values, which keys were given, and where the expect
// entries were (checked against driver_models once both are known).
struct Draft {
    Scenario s;
    YAML::Mark name_mark;
    std::set<std::string> given;
    std::map<std::string, YAML::Mark> expect_marks;
    std::vector<YAML::Mark> api_marks;  // one per entry of s.apis
    YAML::Mark size_mark;               // the `size` key
    std::optional<Field> params;        // read once the kind is known (it may come later or from defaults)
};

}  // namespace pinbench
