// Lookups in the kind table of docs/kinds.md (kinds/registry.cpp) and the builders its kinds'
// parameter tables are written with. The parser and the plan expansion read only this table.
#include "scenario/kind_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <utility>

#include "pinbench/vocabulary/units.hpp"

namespace pinbench {

ParamSpec size_param(std::string_view name, bool required, nlohmann::json fallback) {
    ParamSpec p;
    p.name = name;
    p.type = ParamType::size;
    p.required = required;
    p.fallback = std::move(fallback);
    return p;
}

ParamSpec integer_param(std::string_view name, int min, bool required, nlohmann::json fallback) {
    ParamSpec p;
    p.name = name;
    p.type = ParamType::integer;
    p.min = min;
    p.required = required;
    p.fallback = std::move(fallback);
    return p;
}

ParamSpec number_param(std::string_view name, double min, bool exclusive, bool required,
                       nlohmann::json fallback) {
    ParamSpec p;
    p.name = name;
    p.type = ParamType::number;
    p.min = min;
    p.min_exclusive = exclusive;
    p.required = required;
    p.fallback = std::move(fallback);
    return p;
}

ParamSpec choice_param(std::string_view name, std::vector<std::string_view> choices, bool required,
                       nlohmann::json fallback) {
    ParamSpec p;
    p.name = name;
    p.type = ParamType::choice;
    p.choices = std::move(choices);
    p.required = required;
    p.fallback = std::move(fallback);
    return p;
}

ParamSpec axis(ParamSpec p) {
    p.axis = true;
    return p;
}

ParamSpec when(ParamSpec p, std::string_view param, std::string_view value) {
    p.when = Condition{param, value};
    return p;
}

const KindSpec* find_kind(std::string_view name) {
    const std::vector<KindSpec>& kinds = kind_specs();
    const auto it =
        std::find_if(kinds.begin(), kinds.end(), [&](const KindSpec& k) { return k.name == name; });
    return it == kinds.end() ? nullptr : &*it;
}

const ParamSpec* find_param(const KindSpec& kind, std::string_view name) {
    const auto it = std::find_if(kind.params.begin(), kind.params.end(),
                                 [&](const ParamSpec& p) { return p.name == name; });
    return it == kind.params.end() ? nullptr : &*it;
}

bool applies(const Condition& c, const nlohmann::json& params) {
    if (c.always()) {
        return true;
    }
    const auto it = params.find(std::string(c.param));
    if (it == params.end()) {
        return false;
    }
    const nlohmann::json value = std::string(c.value);
    if (it->is_array()) {
        return std::find(it->begin(), it->end(), value) != it->end();
    }
    return *it == value;
}

std::string param_label(const ParamSpec& p, const nlohmann::json& value) {
    switch (p.type) {
        case ParamType::size:
            return value.is_string() ? value.get<std::string>() : size_label(value.get<std::uint64_t>());
        case ParamType::integer:
            return std::to_string(value.get<long long>());
        case ParamType::number: {
            char buf[32];
            std::snprintf(buf, sizeof buf, "%g", value.get<double>());
            return buf;
        }
        case ParamType::choice:
        case ParamType::text:
            return value.get<std::string>();
        case ParamType::texts:
            return value.dump();
    }
    return value.dump();
}

std::vector<std::uint64_t> size_curve_sizes(std::uint64_t start, std::uint64_t stop, std::uint64_t step,
                                            double factor, std::size_t limit) {
    std::vector<std::uint64_t> sizes;
    for (std::uint64_t s = start; s <= stop && sizes.size() < limit;) {
        sizes.push_back(s);
        const double scaled = std::ceil(static_cast<double>(s) * factor);
        const std::uint64_t next =
            step != 0 ? (s > std::numeric_limits<std::uint64_t>::max() - step ? s : s + step)
                      : (scaled >= 18446744073709551615.0 ? s : static_cast<std::uint64_t>(scaled));
        if (next <= s) break;
        s = next;
    }
    return sizes;
}

}  // namespace pinbench
