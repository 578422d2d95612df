// The values of a scenario file as its keys, parameters and claims read them: text, integers,
// numbers, sizes with units, "one value or a list", each refused at its node (FILE:LINE:COL)
// with the scenario format's words. The YAML itself is yaml_reader.hpp's.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "scenario/yaml_reader.hpp"

namespace pinbench {

using Field = YamlField;

// A number as messages write it ("0.5", "1e+06").
std::string format_number(double value);

class ScenarioValues {
public:
    explicit ScenarioValues(std::string path) : yaml_(std::move(path), "a scenario file") {}

    const std::string& path() const { return yaml_.file(); }
    [[noreturn]] void fail(const YAML::Mark& m, const std::string& message) const { yaml_.fail(m, message); }
    std::optional<YAML::Node> document(const std::string& text) const { return yaml_.document(text); }
    std::vector<Field> fields_of(const YAML::Node& map) const { return yaml_.fields(map); }
    static const Field* find(const std::vector<Field>& fields, std::string_view key);

    const std::string& text(const YAML::Node& n, const YAML::Mark& m, std::string_view what) const;
    int integer(const YAML::Node& n, const YAML::Mark& m, std::string_view what, int min) const;
    int integer(const Field& f, std::string_view what, int min) const {
        return integer(f.value, f.value_mark(), what, min);
    }
    double number(const YAML::Node& n, const YAML::Mark& m, std::string_view what) const;
    std::uint64_t size(const YAML::Node& n, const YAML::Mark& m, std::string_view what) const;

    // "One value or a list": the nodes to read, each with where to point on error.
    std::vector<std::pair<YAML::Node, YAML::Mark>> one_or_list(const Field& f) const;

    // Rejects a repeated value in a list: it would plan the same run twice.
    template <typename T>
    void push_unique(std::vector<T>& out, T value, const YAML::Mark& m, std::string_view key,
                     const std::string& shown) const {
        if (std::find(out.begin(), out.end(), value) != out.end()) {
            fail(m, "duplicate value " + in_quotes(shown) + " in " + in_quotes(key));
        }
        out.push_back(std::move(value));
    }

private:
    // The message for a scalar that is not the `expected` value ("an integer", "a number").
    [[noreturn]] void fail_scalar(const YAML::Node& n, const YAML::Mark& m, std::string_view what,
                                  ScalarFault fault, std::string_view expected) const;

    YamlReader yaml_;
};

}  // namespace pinbench
