#include "scenario/kind_params.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "pinbench/vocabulary/units.hpp"
#include "scenario/did_you_mean.hpp"
#include "scenario/kind_table.hpp"

namespace pinbench {
namespace {

std::string unknown_param_message(std::string_view name, const KindSpec& kind) {
    std::string msg = "unknown parameter " + in_quotes(name) + " for kind " + in_quotes(kind.name);
    if (kind.params.empty()) {
        msg += ", which has no parameters";
    } else {
        std::vector<std::string_view> names;
        for (const ParamSpec& p : kind.params) {
            names.push_back(p.name);
        }
        const std::string hint = suggestion(name, names, "parameters");
        if (hint.rfind("; did you mean", 0) == 0) {
            return msg + hint;
        }
        msg += hint;
    }
    std::vector<std::string_view> owners;  // a parameter of another kind, named in the wrong place
    for (const KindSpec& k : kind_specs()) {
        if (find_param(k, name) != nullptr) {
            owners.push_back(k.name);
        }
    }
    if (!owners.empty()) {
        msg += "; " + in_quotes(name) + " is a parameter of kind" + (owners.size() > 1 ? "s " : " ") +
               join(owners);
    }
    return msg;
}

nlohmann::json param_value(const ScenarioValues& values, const ParamSpec& p, const YAML::Node& n,
                           const YAML::Mark& m) {
    const std::string what(p.name);
    switch (p.type) {
        case ParamType::size:
            if (n.IsScalar() && contains(p.words, n.Scalar())) return n.Scalar();
            if (!p.words.empty() && n.IsScalar() && !n.Scalar().empty() &&
                !std::isdigit(static_cast<unsigned char>(n.Scalar()[0]))) {
                values.fail(m, what + ": expected a size or " + in_quotes(p.words.front()) + ", got " +
                                   in_quotes(n.Scalar()));
            }
            return values.size(n, m, what);
        case ParamType::integer:
            return values.integer(n, m, what, static_cast<int>(p.min));
        case ParamType::number: {
            const double value = values.number(n, m, what);
            if (p.min_exclusive ? !(value > p.min) : value < p.min) {
                values.fail(m, what + (p.min_exclusive ? " must be greater than " : " must be at least ") +
                                   format_number(p.min) + ", got " + n.Scalar());
            }
            return value;
        }
        case ParamType::choice: {
            const std::string& name = values.text(n, m, what);
            if (!contains(p.choices, name)) {
                values.fail(
                    m, "unknown " + what + " " + in_quotes(name) + suggestion(name, p.choices, "values"));
            }
            return name;
        }
        case ParamType::text:
            return values.text(n, m, what);
        case ParamType::texts: {
            if (!n.IsSequence() || n.size() == 0) {
                values.fail(m, what + " must be a non-empty list of strings, got " + node_kind(n));
            }
            nlohmann::json items = nlohmann::json::array();
            for (const YAML::Node& item : n) items.push_back(values.text(item, item.Mark(), what));
            return items;
        }
    }
    values.fail(m, "parameter " + in_quotes(p.name) + " has no type");  // unreachable: every type is handled
}

// An axis parameter as a list of its values (one value is a list of one); any other as one value.
nlohmann::json read_param(const ScenarioValues& values, const ParamSpec& p, const Field& f) {
    if (p.type == ParamType::texts) return param_value(values, p, f.value, f.value.Mark());
    if (!p.axis) {
        if (!f.value.IsScalar()) {
            values.fail(f.value_mark(), in_quotes(f.key) + " takes one value, got " + node_kind(f.value));
        }
        return param_value(values, p, f.value, f.value.Mark());
    }
    nlohmann::json list = nlohmann::json::array();
    for (const auto& [n, nm] : values.one_or_list(f)) {
        nlohmann::json v = param_value(values, p, n, nm);
        if (std::find(list.begin(), list.end(), v) != list.end()) {
            values.fail(nm, "duplicate value " + in_quotes(n.Scalar()) + " in " + in_quotes(f.key));
        }
        list.push_back(std::move(v));
    }
    return list;
}

std::string condition_text(const Condition& c) {
    return c.always() ? "" : " with " + std::string(c.param) + " " + in_quotes(c.value);
}

// Parameters sharing a group (a sweep's step and factor): exactly one is given. Checked once
// per group, at its first member.
template <typename MarkOf>
void check_one_of(const ScenarioValues& values, const KindSpec& kind, const ParamSpec& p,
                  const nlohmann::json& params, const YAML::Mark& params_mark, const MarkOf& mark_of) {
    std::vector<std::string_view> members;
    std::vector<std::string_view> present;
    for (const ParamSpec& q : kind.params) {
        if (q.one_of_group == p.one_of_group) {
            members.push_back(q.name);
            if (params.contains(std::string(q.name))) {
                present.push_back(q.name);
            }
        }
    }
    if (members.front() != p.name) {
        return;
    }
    std::string names;
    for (std::size_t i = 0; i < members.size(); ++i) {
        names += (i == 0 ? "" : i + 1 == members.size() ? " and " : ", ") + in_quotes(members[i]);
    }
    const std::string who = "kind " + in_quotes(kind.name) + condition_text(p.when);
    if (present.empty()) {
        values.fail(params_mark, who + " needs one of " + names);
    }
    if (present.size() > 1) {
        // Point at whichever of them comes later in the file.
        YAML::Mark later = mark_of(present[0]);
        for (std::string_view name : present) {
            const YAML::Mark m = mark_of(name);
            if (m.line > later.line || (m.line == later.line && m.column > later.column)) {
                later = m;
            }
        }
        values.fail(later, who + " takes exactly one of " + names + ", not both");
    }
}

}  // namespace

void read_kind_params(const ScenarioValues& values, Draft& d, const YAML::Mark& scenario_mark,
                      bool own_size) {
    const KindSpec& kind = *find_kind(d.s.kind);  // the scenario's keys accepted the name
    nlohmann::json given = nlohmann::json::object();
    std::map<std::string, YAML::Mark> marks;  // the value of each given parameter
    if (d.params) {
        for (const Field& f : values.fields_of(d.params->value)) {
            const ParamSpec* p = find_param(kind, f.key);
            if (p == nullptr) {
                values.fail(f.key_node.Mark(), unknown_param_message(f.key, kind));
            }
            given[f.key] = read_param(values, *p, f);
            marks[f.key] = f.value_mark();
        }
    }
    const YAML::Mark params_mark = d.params ? d.params->key_node.Mark() : scenario_mark;
    auto mark_of = [&](std::string_view name) {
        const auto it = marks.find(std::string(name));
        return it == marks.end() ? params_mark : it->second;
    };

    // In table order: a condition names an earlier parameter, already resolved.
    nlohmann::json params = nlohmann::json::object();
    for (const ParamSpec& p : kind.params) {
        const std::string name(p.name);
        const bool here = applies(p.when, params);
        if (const auto it = given.find(name); it != given.end()) {
            if (!here) {
                values.fail(mark_of(name),
                            "parameter " + in_quotes(name) + " is used only" + condition_text(p.when));
            }
            params[name] = *it;
        } else if (here && p.required) {
            values.fail(params_mark, "missing required parameter " + in_quotes(name) + " for kind " +
                                         in_quotes(kind.name) + condition_text(p.when));
        } else if (here && !p.fallback.is_null()) {
            params[name] = p.fallback;
        }
    }

    for (const ParamSpec& p : kind.params) {
        if (!p.one_of_group.empty() && applies(p.when, params)) {
            check_one_of(values, kind, p, params, params_mark, mark_of);
        }
        if (!p.not_above.empty() && params.contains(std::string(p.name)) &&
            params.contains(std::string(p.not_above)) && params[std::string(p.name)].is_number() &&
            params[std::string(p.not_above)].is_number()) {
            const auto value = params[std::string(p.name)].get<std::uint64_t>();
            const auto limit = params[std::string(p.not_above)].get<std::uint64_t>();
            if (value > limit) {
                values.fail(mark_of(p.name), std::string(p.name) + " " + size_label(value) +
                                                 " is greater than " + std::string(p.not_above) + " " +
                                                 size_label(limit));
            }
        }
    }

    if (kind.check_params != nullptr) {
        if (const std::optional<ParamFault> fault = kind.check_params(params)) {
            values.fail(mark_of(fault->param), fault->message);
        }
    }

    if (kind.host_register_only && applies(*kind.host_register_only, params)) {
        for (std::size_t i = 0; i < d.s.apis.size(); ++i) {
            if (d.s.apis[i].family != ApiFamily::host_register) {
                values.fail(d.api_marks.at(i),
                            "kind " + in_quotes(kind.name) + condition_text(*kind.host_register_only) +
                                " needs a cudaHostRegister api, got " + in_quotes(to_string(d.s.apis[i])));
            }
        }
    }

    const ParamSpec* run_size = nullptr;
    for (const ParamSpec& p : kind.params) {
        if (p.is_run_size && params.contains(std::string(p.name))) {
            run_size = &p;
        }
    }
    if (run_size != nullptr) {
        if (own_size) {
            values.fail(d.size_mark, "'size' is not used by kind " + in_quotes(kind.name) +
                                         condition_text(run_size->when) + ": the run's size is " +
                                         in_quotes(run_size->name));
        }
        d.s.sizes = {params[std::string(run_size->name)].get<std::uint64_t>()};
    } else if (d.given.count("size") == 0) {
        values.fail(scenario_mark, "missing required key 'size' in scenario");
    }
    d.s.params = std::move(params);
}

}  // namespace pinbench
