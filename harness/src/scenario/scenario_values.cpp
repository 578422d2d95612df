#include "scenario/scenario_values.hpp"

#include <limits>
#include <sstream>
#include <stdexcept>

#include "pinbench/scenario/scenario.hpp"
#include "pinbench/vocabulary/units.hpp"

namespace pinbench {

std::string format_number(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

const Field* ScenarioValues::find(const std::vector<Field>& fields, std::string_view key) {
    for (const Field& f : fields) {
        if (f.key == key) {
            return &f;
        }
    }
    return nullptr;
}

const std::string& ScenarioValues::text(const YAML::Node& n, const YAML::Mark& m,
                                        std::string_view what) const {
    if (!n.IsScalar()) {
        fail(m, std::string(what) + " must be text, got " + node_kind(n));
    }
    return n.Scalar();
}

void ScenarioValues::fail_scalar(const YAML::Node& n, const YAML::Mark& m, std::string_view what,
                                 ScalarFault fault, std::string_view expected) const {
    const std::string head = std::string(what) + " must be " + std::string(expected);
    switch (fault) {
        case ScalarFault::not_scalar:
            fail(m, head + ", got " + node_kind(n));
        case ScalarFault::quoted:
            fail(m, head + ", not a string (remove the quotes around " + in_quotes(n.Scalar()) + ")");
        case ScalarFault::out_of_range:
            fail(m, std::string(what) + " " + n.Scalar() + " is too large");
        default:
            fail(m, head + ", got " + in_quotes(n.Scalar()));
    }
}

int ScenarioValues::integer(const YAML::Node& n, const YAML::Mark& m, std::string_view what, int min) const {
    ParsedScalar<long long> v = integer_scalar(n);
    if (v.ok() && (v.value < std::numeric_limits<int>::min() || v.value > std::numeric_limits<int>::max())) {
        v.fault = ScalarFault::out_of_range;
    }
    if (!v.ok()) {
        fail_scalar(n, m, what, v.fault, "an integer");
    }
    if (v.value < min) {
        fail(m, std::string(what) + " must be at least " + std::to_string(min) + ", got " + n.Scalar());
    }
    return static_cast<int>(v.value);
}

double ScenarioValues::number(const YAML::Node& n, const YAML::Mark& m, std::string_view what) const {
    const ParsedScalar<double> v = number_scalar(n);
    if (!v.ok()) {
        fail_scalar(n, m, what, v.fault, "a number");
    }
    return v.value;
}

std::uint64_t ScenarioValues::size(const YAML::Node& n, const YAML::Mark& m, std::string_view what) const {
    const std::string& s = text(n, m, what);
    try {
        return parse_size(s);
    } catch (const std::invalid_argument& e) {
        fail(m, e.what());
    }
}

std::vector<std::pair<YAML::Node, YAML::Mark>> ScenarioValues::one_or_list(const Field& f) const {
    std::vector<std::pair<YAML::Node, YAML::Mark>> items;
    if (f.value.IsSequence()) {
        if (f.value.size() == 0) {
            fail(f.value_mark(), in_quotes(f.key) + " list is empty; give at least one value");
        }
        // Longer than any plan may be; also bounds the duplicate-value checks, which scan the list.
        if (f.value.size() > max_planned_runs) {
            fail(f.value_mark(), in_quotes(f.key) + " lists " + std::to_string(f.value.size()) +
                                     " values, more than the " + std::to_string(max_planned_runs) +
                                     " runs a plan may have (docs/scenario-format.md, Limits)");
        }
        for (const YAML::Node& item : f.value) {
            items.emplace_back(item, item.IsNull() ? f.value.Mark() : item.Mark());
        }
    } else if (f.value.IsScalar()) {
        items.emplace_back(f.value, f.value.Mark());
    } else {
        fail(f.value_mark(), in_quotes(f.key) + " must be one value or a list, got " + node_kind(f.value));
    }
    return items;
}

}  // namespace pinbench
