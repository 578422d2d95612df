// Scenario files, schema versions 1 and 2 (docs/scenario-format.md; the kinds and their
// parameters in docs/kinds.md and scenario/kind_table.cpp). Every rejection is an InputError located at
// the offending node, so a user can jump straight to it.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>

#include "pinbench/atomic_file.hpp"
#include "pinbench/errors.hpp"
#include "pinbench/metric_catalog.hpp"
#include "pinbench/scenario.hpp"
#include "pinbench/units.hpp"
#include "scenario/kind_table.hpp"
#include "scenario/yaml_reader.hpp"

namespace pinbench {
namespace {

constexpr std::array<std::string_view, 3> kTopKeys{"schema_version", "defaults", "scenarios"};
constexpr std::array<std::string_view, 12> kScenarioKeys{
    "name", "kind",    "description", "api",           "size",   "count",
    "gpus", "repeats", "timeout_s",   "driver_models", "expect", "params"};
constexpr std::array<std::string_view, 4> kDriverModels{"WDDM", "TCC", "MCDM", "linux"};
constexpr std::array<std::string_view, 4> kExpectKeys{"metrics", "max_overhead_ratio", "min_overhead_ratio",
                                                      "max_overhead_bytes"};
constexpr int kOldestSchemaVersion = 1;  // only kind overhead, no params

template <typename Names>
bool contains(const Names& names, std::string_view name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

template <typename Names>
std::string join(const Names& names) {
    std::string out;
    for (std::string_view n : names) {
        out += (out.empty() ? "" : ", ") + std::string(n);
    }
    return out;
}

std::string format_number(double value) {
    std::ostringstream out;
    out << value;
    return out.str();
}

// Edit distance, for "did you mean" hints on misspelt keys.
std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) {
        row[j] = j;
    }
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = up;
        }
    }
    return row[b.size()];
}

// "did you mean" for a close name, else the list of what is known.
template <typename Names>
std::string suggestion(std::string_view name, const Names& known, std::string_view what) {
    for (std::string_view k : known) {
        if (edit_distance(name, k) <= 2) {
            return "; did you mean " + in_quotes(k) + "?";
        }
    }
    return " (" + std::string(what) + ": " + join(known) + ")";
}

template <typename Names>
std::string unknown_key_message(std::string_view key, const Names& known, std::string_view where) {
    return "unknown key " + in_quotes(key) + std::string(where) + suggestion(key, known, "keys");
}

std::vector<std::string_view> kind_names() {
    std::vector<std::string_view> out;
    for (const KindSpec& k : kind_specs()) {
        out.push_back(k.name);
    }
    return out;
}

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

// A catalog pattern written out with the parts of `name` where its placeholders stand
// ("churn.creep.<key>" for "churn.creap.nvml.0.used" is "churn.creep.nvml.0.used").
std::string filled_pattern(std::string_view pattern, std::string_view name) {
    const auto parts = [](std::string_view text) {
        std::vector<std::string_view> out;
        for (std::size_t at = 0;;) {
            const auto dot = text.find('.', at);
            out.push_back(text.substr(at, dot == std::string_view::npos ? std::string_view::npos : dot - at));
            if (dot == std::string_view::npos) return out;
            at = dot + 1;
        }
    };
    const std::vector<std::string_view> p = parts(pattern), n = parts(name);
    std::string out;
    for (std::size_t i = 0; i < p.size(); ++i) {
        if (i > 0) out += '.';
        if (p[i] == "<key>") {  // the probe key: the rest of the name, dots and all
            for (std::size_t j = i; j < n.size(); ++j) out += (j > i ? "." : "") + std::string(n[j]);
            if (i >= n.size()) out += "cuda.free";
            break;
        }
        out += p[i].find('<') != std::string_view::npos && i < n.size() ? n[i] : p[i];
    }
    return out;
}

// A metric name of an `expect` must be one some kind writes (pinbench metrics): a typo would be
// a claim no run can judge.
bool known_metric(std::string_view name) {
    for (const KindSpec& k : kind_specs()) {
        if (find_metric_spec(k.name, name) != nullptr) return true;
    }
    return false;
}

std::string unknown_metric_message(std::string_view name) {
    std::string best;
    std::size_t best_distance = std::numeric_limits<std::size_t>::max();
    for (const MetricSpec& m : metric_catalog()) {
        std::string candidate = filled_pattern(m.pattern, name);
        const std::size_t d = edit_distance(name, candidate);
        if (d < best_distance) {
            best_distance = d;
            best = std::move(candidate);
        }
    }
    const std::string head = "unknown metric " + in_quotes(name) + ": no kind writes it";
    if (best_distance <= std::max<std::size_t>(2, name.size() / 8)) {
        return head + "; did you mean " + in_quotes(best) + "?";
    }
    return head + " (`pinbench metrics` lists every metric)";
}

using Field = YamlField;

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

class Reader {
public:
    explicit Reader(std::string path) : path_(std::move(path)), yaml_(path_, "a scenario file") {}

    [[noreturn]] void fail(const YAML::Mark& m, const std::string& message) const { yaml_.fail(m, message); }

    // The runs a scenario expands to (plan.cpp multiplies the same lists), saturating.
    static std::uint64_t run_count(const Scenario& s) {
        const auto mul = [](std::uint64_t a, std::uint64_t b) {
            return (b != 0 && a > std::numeric_limits<std::uint64_t>::max() / b)
                       ? std::numeric_limits<std::uint64_t>::max()
                       : a * b;
        };
        std::uint64_t n = mul(mul(mul(s.apis.size(), s.sizes.size()), s.counts.size()), s.gpus.size());
        for (const auto& [name, value] : s.params.items()) {
            const KindSpec* kind = find_kind(s.kind);
            const ParamSpec* p = kind ? find_param(*kind, name) : nullptr;
            if (p != nullptr && p->axis && value.is_array()) {
                n = mul(n, value.size());
            }
        }
        return n;
    }

    ScenarioFile read(const std::string& text) {
        const std::optional<YAML::Node> doc = yaml_.document(text);
        if (!doc) {
            fail(YAML::Mark(), "the file is empty; expected 'schema_version: " +
                                   std::to_string(scenario_schema_version) + "' and 'scenarios'");
        }
        const YAML::Node& root = *doc;
        if (!root.IsMap()) {
            fail(root.Mark(), "the top level must be a mapping with 'schema_version' and 'scenarios'");
        }

        const std::vector<Field> fields = fields_of(root);
        // The version first: a newer file's keys are better explained by its version than as unknown.
        const Field* version = find(fields, "schema_version");
        if (version == nullptr) {
            fail(root.Mark(),
                 "missing required key 'schema_version' (this pinbench reads " + versions_read() + ")");
        }
        const int v = integer(*version, "schema_version", std::numeric_limits<int>::min());
        if (v < kOldestSchemaVersion || v > scenario_schema_version) {
            fail(version->value_mark(), "unsupported schema_version " + std::to_string(v) +
                                            " (this pinbench reads " + versions_read() + ")");
        }
        version_ = v;
        for (const Field& f : fields) {
            if (!contains(kTopKeys, f.key)) {
                fail(f.key_node.Mark(), unknown_key_message(f.key, kTopKeys, " at the top level"));
            }
        }

        Draft defaults;
        if (const Field* d = find(fields, "defaults")) {
            if (!d->value.IsMap()) {
                fail(d->value_mark(),
                     "'defaults' must be a mapping of scenario keys, got " + node_kind(d->value));
            }
            for (const Field& f : fields_of(d->value)) {
                if (f.key == "name") {
                    fail(f.key_node.Mark(), "'name' cannot have a default; each scenario names itself");
                }
                apply(defaults, f, " in defaults");
            }
        }

        const Field* list = find(fields, "scenarios");
        if (list == nullptr) {
            fail(root.Mark(), "missing required key 'scenarios'");
        }
        if (!list->value.IsSequence()) {
            fail(list->value_mark(),
                 "'scenarios' must be a list of scenarios, got " + node_kind(list->value));
        }
        if (list->value.size() == 0) {
            fail(list->value_mark(), "'scenarios' is empty; at least one scenario is required");
        }

        ScenarioFile file;
        file.path = path_;
        file.schema_version = v;
        std::map<std::string, YAML::Mark> names;
        std::uint64_t runs = 0;
        for (const YAML::Node& item : list->value) {
            Draft d = scenario(item, defaults);
            if (const auto first = names.find(d.s.name); first != names.end()) {
                fail(d.name_mark, "duplicate scenario name " + in_quotes(d.s.name) + " (first used at line " +
                                      std::to_string(first->second.line + 1) + ")");
            }
            names.emplace(d.s.name, d.name_mark);
            // Checked before the plan is expanded: a 10 kB file could ask for 64M runs (bad_alloc).
            const std::uint64_t own = run_count(d.s);
            runs = own > max_planned_runs ? own : runs + own;
            if (runs > max_planned_runs) {
                fail(d.name_mark,
                     "the plan would have more than " + std::to_string(max_planned_runs) +
                         " runs (scenario " + in_quotes(d.s.name) + " alone expands to " +
                         (own == std::numeric_limits<std::uint64_t>::max() ? std::string("more than 2^64")
                                                                           : std::to_string(own)) +
                         "); split the file or shorten its lists (docs/scenario-format.md, Limits)");
            }
            file.scenarios.push_back(std::move(d.s));
        }
        return file;
    }

private:
    std::string path_;
    YamlReader yaml_;
    int version_ = scenario_schema_version;  // of the file being read

    static std::string versions_read() {
        return "versions " + std::to_string(kOldestSchemaVersion) +
               (scenario_schema_version - kOldestSchemaVersion == 1 ? " and " : " to ") +
               std::to_string(scenario_schema_version);
    }

    std::vector<Field> fields_of(const YAML::Node& map) const { return yaml_.fields(map); }

    static const Field* find(const std::vector<Field>& fields, std::string_view key) {
        for (const Field& f : fields) {
            if (f.key == key) {
                return &f;
            }
        }
        return nullptr;
    }

    // ---- scalars ------------------------------------------------------------------------

    const std::string& text(const YAML::Node& n, const YAML::Mark& m, std::string_view what) const {
        if (!n.IsScalar()) {
            fail(m, std::string(what) + " must be text, got " + node_kind(n));
        }
        return n.Scalar();
    }

    // The message for a scalar that is not the `expected` value ("an integer", "a number").
    [[noreturn]] void fail_scalar(const YAML::Node& n, const YAML::Mark& m, std::string_view what,
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

    int integer(const YAML::Node& n, const YAML::Mark& m, std::string_view what, int min) const {
        ParsedScalar<long long> v = integer_scalar(n);
        if (v.ok() &&
            (v.value < std::numeric_limits<int>::min() || v.value > std::numeric_limits<int>::max())) {
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
    int integer(const Field& f, std::string_view what, int min) const {
        return integer(f.value, f.value_mark(), what, min);
    }

    double number(const YAML::Node& n, const YAML::Mark& m, std::string_view what) const {
        const ParsedScalar<double> v = number_scalar(n);
        if (!v.ok()) {
            fail_scalar(n, m, what, v.fault, "a number");
        }
        return v.value;
    }

    std::uint64_t size(const YAML::Node& n, const YAML::Mark& m, std::string_view what) const {
        const std::string& s = text(n, m, what);
        try {
            return parse_size(s);
        } catch (const std::invalid_argument& e) {
            fail(m, e.what());
        }
    }

    // "One value or a list": the nodes to read, each with where to point on error.
    std::vector<std::pair<YAML::Node, YAML::Mark>> one_or_list(const Field& f) const {
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
            fail(f.value_mark(),
                 in_quotes(f.key) + " must be one value or a list, got " + node_kind(f.value));
        }
        return items;
    }

    // Rejects a repeated value in a list: it would plan the same run twice.
    template <typename T>
    void push_unique(std::vector<T>& out, T value, const YAML::Mark& m, std::string_view key,
                     const std::string& shown) const {
        if (std::find(out.begin(), out.end(), value) != out.end()) {
            fail(m, "duplicate value " + in_quotes(shown) + " in " + in_quotes(key));
        }
        out.push_back(std::move(value));
    }

    // ---- scenarios ----------------------------------------------------------------------

    Draft scenario(const YAML::Node& item, const Draft& defaults) const {
        if (!item.IsMap()) {
            fail(item.Mark(),
                 "each scenario must be a mapping (name: ..., kind: ...), got " + node_kind(item));
        }
        Draft d = defaults;
        d.s.where = SourceLocation{path_, item.Mark().line + 1, item.Mark().column + 1};
        std::set<std::string> own;  // keys the scenario sets itself, not through defaults
        for (const Field& f : fields_of(item)) {
            apply(d, f, " in scenario");
            own.insert(f.key);
        }
        for (std::string_view key : {"name", "kind", "api"}) {
            if (d.given.count(std::string(key)) == 0) {
                fail(item.Mark(), "missing required key " + in_quotes(key) + " in scenario");
            }
        }
        read_params(d, item.Mark(), own.count("size") != 0);
        if (!d.s.driver_models.empty()) {
            for (const auto& [model, mark] : d.expect_marks) {
                if (std::find(d.s.driver_models.begin(), d.s.driver_models.end(), model) ==
                    d.s.driver_models.end()) {
                    fail(mark, "expect for " + in_quotes(model) +
                                   ", which is not in this scenario's driver_models");
                }
            }
        }
        return d;
    }

    // ---- kind parameters (docs/kinds.md; the table is in scenario/kind_table.cpp) --------------

    nlohmann::json param_value(const ParamSpec& p, const YAML::Node& n, const YAML::Mark& m) const {
        const std::string what(p.name);
        switch (p.type) {
            case ParamType::size:
                if (n.IsScalar() && contains(p.words, n.Scalar())) return n.Scalar();
                if (!p.words.empty() && n.IsScalar() && !n.Scalar().empty() &&
                    !std::isdigit(static_cast<unsigned char>(n.Scalar()[0]))) {
                    fail(m, what + ": expected a size or " + in_quotes(p.words.front()) + ", got " +
                                in_quotes(n.Scalar()));
                }
                return size(n, m, what);
            case ParamType::integer:
                return integer(n, m, what, static_cast<int>(p.min));
            case ParamType::number: {
                const double value = number(n, m, what);
                if (p.min_exclusive ? !(value > p.min) : value < p.min) {
                    fail(m, what + (p.min_exclusive ? " must be greater than " : " must be at least ") +
                                format_number(p.min) + ", got " + n.Scalar());
                }
                return value;
            }
            case ParamType::choice: {
                const std::string& name = text(n, m, what);
                if (!contains(p.choices, name)) {
                    fail(m,
                         "unknown " + what + " " + in_quotes(name) + suggestion(name, p.choices, "values"));
                }
                return name;
            }
            case ParamType::text:
                return text(n, m, what);
            case ParamType::texts: {
                if (!n.IsSequence() || n.size() == 0) {
                    fail(m, what + " must be a non-empty list of strings, got " + node_kind(n));
                }
                nlohmann::json items = nlohmann::json::array();
                for (const YAML::Node& item : n) items.push_back(text(item, item.Mark(), what));
                return items;
            }
        }
        fail(m, "parameter " + in_quotes(p.name) + " has no type");  // unreachable: every type is handled
    }

    // An axis parameter as a list of its values (one value is a list of one); any other as one value.
    nlohmann::json read_param(const ParamSpec& p, const Field& f) const {
        if (p.type == ParamType::texts) return param_value(p, f.value, f.value.Mark());
        if (!p.axis) {
            if (!f.value.IsScalar()) {
                fail(f.value_mark(), in_quotes(f.key) + " takes one value, got " + node_kind(f.value));
            }
            return param_value(p, f.value, f.value.Mark());
        }
        nlohmann::json values = nlohmann::json::array();
        for (const auto& [n, nm] : one_or_list(f)) {
            nlohmann::json v = param_value(p, n, nm);
            if (std::find(values.begin(), values.end(), v) != values.end()) {
                fail(nm, "duplicate value " + in_quotes(n.Scalar()) + " in " + in_quotes(f.key));
            }
            values.push_back(std::move(v));
        }
        return values;
    }

    static std::string condition_text(const Condition& c) {
        return c.always() ? "" : " with " + std::string(c.param) + " " + in_quotes(c.value);
    }

    // Reads `params` against the kind's table, fills in defaults, applies the cross-field rules
    // and settles the run size (a sweep's stop or cap, else the scenario's `size`).
    void read_params(Draft& d, const YAML::Mark& scenario_mark, bool own_size) const {
        const KindSpec& kind = *find_kind(d.s.kind);  // apply() accepted the name
        nlohmann::json given = nlohmann::json::object();
        std::map<std::string, YAML::Mark> marks;  // the value of each given parameter
        if (d.params) {
            for (const Field& f : fields_of(d.params->value)) {
                const ParamSpec* p = find_param(kind, f.key);
                if (p == nullptr) {
                    fail(f.key_node.Mark(), unknown_param_message(f.key, kind));
                }
                given[f.key] = read_param(*p, f);
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
                    fail(mark_of(name),
                         "parameter " + in_quotes(name) + " is used only" + condition_text(p.when));
                }
                params[name] = *it;
            } else if (here && p.required) {
                fail(params_mark, "missing required parameter " + in_quotes(name) + " for kind " +
                                      in_quotes(kind.name) + condition_text(p.when));
            } else if (here && !p.fallback.is_null()) {
                params[name] = p.fallback;
            }
        }

        for (const ParamSpec& p : kind.params) {
            if (!p.one_of_group.empty() && applies(p.when, params)) {
                check_one_of(kind, p, params, params_mark, mark_of);
            }
            if (!p.not_above.empty() && params.contains(std::string(p.name)) &&
                params.contains(std::string(p.not_above)) && params[std::string(p.name)].is_number() &&
                params[std::string(p.not_above)].is_number()) {
                const auto value = params[std::string(p.name)].get<std::uint64_t>();
                const auto limit = params[std::string(p.not_above)].get<std::uint64_t>();
                if (value > limit) {
                    fail(mark_of(p.name), std::string(p.name) + " " + size_label(value) +
                                              " is greater than " + std::string(p.not_above) + " " +
                                              size_label(limit));
                }
            }
        }

        check_size_curve(params, mark_of);

        if (kind.host_register_only && applies(*kind.host_register_only, params)) {
            for (std::size_t i = 0; i < d.s.apis.size(); ++i) {
                if (d.s.apis[i].family != ApiFamily::host_register) {
                    fail(d.api_marks.at(i),
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
                fail(d.size_mark, "'size' is not used by kind " + in_quotes(kind.name) +
                                      condition_text(run_size->when) + ": the run's size is " +
                                      in_quotes(run_size->name));
            }
            d.s.sizes = {params[std::string(run_size->name)].get<std::uint64_t>()};
        } else if (d.given.count("size") == 0) {
            fail(scenario_mark, "missing required key 'size' in scenario");
        }
        d.s.params = std::move(params);
    }

    // A sweep's size_curve measures at most max_size_curve_points sizes: a longer curve is refused
    // here, at its step or factor, rather than cut short while it runs.
    template <typename MarkOf>
    void check_size_curve(const nlohmann::json& params, const MarkOf& mark_of) const {
        if (params.value("mode", "") != "size_curve" || !params.contains("start") ||
            !params.contains("stop")) {
            return;
        }
        const bool by_step = params.contains("step") && !params["step"].is_null();
        if (!by_step && !(params.contains("factor") && params["factor"].is_number())) {
            return;
        }
        const std::uint64_t n =
            size_curve_sizes(params["start"].get<std::uint64_t>(), params["stop"].get<std::uint64_t>(),
                             by_step ? params["step"].get<std::uint64_t>() : 0,
                             by_step ? 0.0 : params["factor"].get<double>(), max_size_curve_points + 1)
                .size();
        if (n > max_size_curve_points) {
            fail(mark_of(by_step ? "step" : "factor"),
                 "the size curve from " + size_label(params["start"].get<std::uint64_t>()) + " to " +
                     size_label(params["stop"].get<std::uint64_t>()) + " has more than " +
                     std::to_string(max_size_curve_points) +
                     " points (docs/scenario-format.md, Limits); use a larger step or factor");
        }
    }

    // Parameters sharing a group (a sweep's step and factor): exactly one is given. Checked once
    // per group, at its first member.
    template <typename MarkOf>
    void check_one_of(const KindSpec& kind, const ParamSpec& p, const nlohmann::json& params,
                      const YAML::Mark& params_mark, const MarkOf& mark_of) const {
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
            fail(params_mark, who + " needs one of " + names);
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
            fail(later, who + " takes exactly one of " + names + ", not both");
        }
    }

    void apply(Draft& d, const Field& f, std::string_view where) const {
        Scenario& s = d.s;
        const YAML::Mark m = f.value_mark();
        if (f.key == "name") {
            s.name = text(f.value, m, "name");
            const bool ok = !s.name.empty() && std::all_of(s.name.begin(), s.name.end(), [](char c) {
                return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '.' || c == '-';
            });
            if (!ok) {
                fail(m, "scenario name " + in_quotes(s.name) +
                            " may use only letters, digits, '_', '.' and '-'");
            }
            d.name_mark = m;
        } else if (f.key == "kind") {
            s.kind = text(f.value, m, "kind");
            const KindSpec* kind = find_kind(s.kind);
            if (kind == nullptr) {
                fail(m, "unknown kind " + in_quotes(s.kind) + suggestion(s.kind, kind_names(), "kinds"));
            }
            if (kind->since_version > version_) {
                fail(m, "kind " + in_quotes(s.kind) + " needs schema_version " +
                            std::to_string(kind->since_version));
            }
        } else if (f.key == "description") {
            s.description = text(f.value, m, "description");
        } else if (f.key == "api") {
            s.apis.clear();
            d.api_marks.clear();
            for (const auto& [n, nm] : one_or_list(f)) {
                const std::string& spelling = text(n, nm, "api");
                std::string why;
                const std::optional<ApiVariant> api = parse_api_variant(spelling, &why);
                if (!api) {
                    fail(nm, why);
                }
                push_unique(s.apis, *api, nm, "api", spelling);
                d.api_marks.push_back(nm);
            }
        } else if (f.key == "size") {
            s.sizes.clear();
            d.size_mark = f.key_node.Mark();
            for (const auto& [n, nm] : one_or_list(f)) {
                push_unique(s.sizes, size(n, nm, "size"), nm, "size", n.Scalar());
            }
        } else if (f.key == "count" || f.key == "gpus") {
            std::vector<int>& out = f.key == "count" ? s.counts : s.gpus;
            out.clear();
            for (const auto& [n, nm] : one_or_list(f)) {
                push_unique(out, integer(n, nm, f.key, 1), nm, f.key, n.Scalar());
            }
        } else if (f.key == "repeats") {
            s.repeats = integer(f, "repeats", 1);
        } else if (f.key == "timeout_s") {
            s.timeout_s = number(f.value, m, "timeout_s");
            if (s.timeout_s <= 0) {
                fail(m, "timeout_s must be greater than 0, got " + f.value.Scalar());
            }
            if (s.timeout_s > max_timeout_s) {  // 1e16 s overflowed into "timed out after 0 s"
                fail(m, "timeout_s must be at most " + format_number(max_timeout_s) + " (one week), got " +
                            f.value.Scalar());
            }
        } else if (f.key == "driver_models") {
            s.driver_models.clear();
            for (const auto& [n, nm] : one_or_list(f)) {
                const std::string& model = text(n, nm, "driver model");
                if (!contains(kDriverModels, model)) {
                    fail(nm, "unknown driver model " + in_quotes(model) + " (models: " + join(kDriverModels) +
                                 ")");
                }
                push_unique(s.driver_models, model, nm, "driver_models", model);
            }
        } else if (f.key == "expect") {
            read_expect(d, f);
        } else if (f.key == "params") {
            if (version_ < 2) {
                fail(f.key_node.Mark(), "key 'params' needs schema_version 2");
            }
            if (!f.value.IsMap()) {
                fail(f.value_mark(),
                     "'params' must be a mapping of parameter names to values, got " + node_kind(f.value));
            }
            d.params = f;
        } else {
            fail(f.key_node.Mark(), unknown_key_message(f.key, kScenarioKeys, where));
        }
        d.given.insert(f.key);
    }

    // metrics: {METRIC: {min: V, max: V}}, V a plain number (ratio, count, ms) or a size with a
    // unit (bytes). A claim about any kind's metric (docs/kinds.md), judged on the run's median.
    nlohmann::json metric_limits(const Field& f) const {
        if (!f.value.IsMap() || f.value.size() == 0) {
            fail(f.value_mark(), "'metrics' must be a non-empty mapping of metric name to {min, max}, got " +
                                     node_kind(f.value));
        }
        static constexpr std::array<std::string_view, 2> kBounds{"min", "max"};
        nlohmann::json out = nlohmann::json::object();
        for (const Field& metric : fields_of(f.value)) {
            const bool named = !metric.key.empty() && metric.key.find('.') != std::string::npos &&
                               metric.key.find(' ') == std::string::npos;
            if (!named) {
                fail(metric.key_node.Mark(), "metric name " + in_quotes(metric.key) +
                                                 " is not a metric name such as 'churn.creep.cuda.free'");
            }
            if (!known_metric(metric.key)) fail(metric.key_node.Mark(), unknown_metric_message(metric.key));
            if (!metric.value.IsMap() || metric.value.size() == 0) {
                fail(metric.value_mark(), "limits of " + in_quotes(metric.key) +
                                              " must be a mapping with min and/or max, got " +
                                              node_kind(metric.value));
            }
            nlohmann::json bounds = nlohmann::json::object();
            for (const Field& bound : fields_of(metric.value)) {
                if (!contains(kBounds, bound.key)) {
                    fail(bound.key_node.Mark(), unknown_key_message(bound.key, kBounds, " in metric limits"));
                }
                const YAML::Mark bm = bound.value_mark();
                const bool sized = bound.value.IsScalar() && is_plain(bound.value) &&
                                   bound.value.Scalar().find_first_of("BKMGT") != std::string::npos;
                bounds[bound.key] = sized ? static_cast<double>(size(bound.value, bm, bound.key))
                                          : number(bound.value, bm, bound.key);
            }
            if (bounds.contains("min") && bounds.contains("max") &&
                bounds["min"].get<double>() > bounds["max"].get<double>()) {
                fail(metric.value_mark(), "min is greater than max for " + in_quotes(metric.key));
            }
            out[metric.key] = std::move(bounds);
        }
        return out;
    }

    // expect: {MODEL: {max_overhead_ratio: x, min_overhead_ratio: y, max_overhead_bytes: SIZE,
    //                  metrics: {METRIC: {min: V, max: V}}}}
    void read_expect(Draft& d, const Field& f) const {
        if (!f.value.IsMap()) {
            fail(f.value_mark(),
                 "'expect' must be a mapping of driver model to limits, got " + node_kind(f.value));
        }
        d.s.expect = nlohmann::json::object();
        d.expect_marks.clear();
        for (const Field& model : fields_of(f.value)) {
            if (!contains(kDriverModels, model.key)) {
                fail(model.key_node.Mark(), "unknown driver model " + in_quotes(model.key) +
                                                " in expect (models: " + join(kDriverModels) + ")");
            }
            if (!model.value.IsMap() || model.value.size() == 0) {
                fail(model.value_mark(), "expect for " + in_quotes(model.key) +
                                             " must be a non-empty mapping of limits (" + join(kExpectKeys) +
                                             ")");
            }
            nlohmann::json limits = nlohmann::json::object();
            const std::vector<Field> limit_fields = fields_of(model.value);
            for (const Field& limit : limit_fields) {
                const YAML::Mark m = limit.value_mark();
                if (limit.key == "metrics") {
                    limits[limit.key] = metric_limits(limit);
                } else if (limit.key == "max_overhead_bytes") {
                    limits[limit.key] = size(limit.value, m, "max_overhead_bytes");
                } else if (limit.key == "max_overhead_ratio" || limit.key == "min_overhead_ratio") {
                    const double ratio = number(limit.value, m, limit.key);
                    if (ratio < 0) {
                        fail(m, limit.key + " must be 0 or more, got " + limit.value.Scalar());
                    }
                    limits[limit.key] = ratio;
                } else {
                    fail(limit.key_node.Mark(), unknown_key_message(limit.key, kExpectKeys, " in expect"));
                }
            }
            if (limits.contains("min_overhead_ratio") && limits.contains("max_overhead_ratio") &&
                limits["min_overhead_ratio"].get<double>() > limits["max_overhead_ratio"].get<double>()) {
                fail(find(limit_fields, "min_overhead_ratio")->value_mark(),
                     "min_overhead_ratio is greater than max_overhead_ratio for " + in_quotes(model.key));
            }
            d.s.expect[model.key] = std::move(limits);
            d.expect_marks[model.key] = model.key_node.Mark();
        }
    }
};

}  // namespace

ScenarioFile parse_scenario_text(const std::string& text, const std::string& path_for_messages) {
    return Reader(path_for_messages).read(text);
}

ScenarioFile load_scenario_file(const std::string& path) {
    std::string text;
    try {
        text = read_file(path, input_limit::text);
    } catch (const SystemError& e) {
        throw InputError(e.what());  // a scenario that cannot be read is bad input (exit 2)
    }
    return parse_scenario_text(text, path);
}

nlohmann::json to_json(const Scenario& s) {
    nlohmann::json apis = nlohmann::json::array();
    for (const ApiVariant& a : s.apis) {
        apis.push_back(to_string(a));
    }
    return {
        {"name", s.name},
        {"kind", s.kind},
        {"description", s.description},
        {"api", apis},
        {"size_bytes", s.sizes},
        {"count", s.counts},
        {"gpus", s.gpus},
        {"repeats", s.repeats},
        {"timeout_s", s.timeout_s},
        {"driver_models", s.driver_models},
        {"expect", s.expect},
        {"params", s.params},
        {"where", {{"file", s.where.file}, {"line", s.where.line}, {"column", s.where.column}}},
    };
}

}  // namespace pinbench
