// Scenario files, schema versions 1 and 2 (docs/scenario-format.md): the file's and each
// scenario's keys. A scenario's `params` are read against its kind's table in kind_params.cpp,
// its `expect` claims in expect_claims.cpp. Every rejection is an InputError located at the
// offending node, so a user can jump straight to it.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/scenario/scenario.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "scenario/did_you_mean.hpp"
#include "scenario/expect_claims.hpp"
#include "scenario/kind_params.hpp"
#include "scenario/kind_table.hpp"
#include "scenario/scenario_draft.hpp"
#include "scenario/scenario_values.hpp"

namespace pinbench {
namespace {

constexpr std::array<std::string_view, 3> kTopKeys{"schema_version", "defaults", "scenarios"};
constexpr std::array<std::string_view, 12> kScenarioKeys{
    "name", "kind",    "description", "api",           "size",   "count",
    "gpus", "repeats", "timeout_s",   "driver_models", "expect", "params"};
constexpr int kOldestSchemaVersion = 1;  // only kind overhead, no params

std::vector<std::string_view> kind_names() {
    std::vector<std::string_view> out;
    for (const KindSpec& k : kind_specs()) {
        out.push_back(k.name);
    }
    return out;
}

class Reader {
public:
    Reader(std::string path, MetricNameCheck check_metric)
        : values_(std::move(path)), check_metric_(check_metric) {}

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
        const std::optional<YAML::Node> doc = values_.document(text);
        if (!doc) {
            values_.fail(YAML::Mark(), "the file is empty; expected 'schema_version: " +
                                           std::to_string(scenario_schema_version) + "' and 'scenarios'");
        }
        const YAML::Node& root = *doc;
        if (!root.IsMap()) {
            values_.fail(root.Mark(),
                         "the top level must be a mapping with 'schema_version' and 'scenarios'");
        }

        const std::vector<Field> fields = values_.fields_of(root);
        // The version first: a newer file's keys are better explained by its version than as unknown.
        const Field* version = ScenarioValues::find(fields, "schema_version");
        if (version == nullptr) {
            values_.fail(root.Mark(), "missing required key 'schema_version' (this pinbench reads " +
                                          versions_read() + ")");
        }
        const int v = values_.integer(*version, "schema_version", std::numeric_limits<int>::min());
        if (v < kOldestSchemaVersion || v > scenario_schema_version) {
            values_.fail(version->value_mark(), "unsupported schema_version " + std::to_string(v) +
                                                    " (this pinbench reads " + versions_read() + ")");
        }
        version_ = v;
        for (const Field& f : fields) {
            if (!contains(kTopKeys, f.key)) {
                values_.fail(f.key_node.Mark(), unknown_key_message(f.key, kTopKeys, " at the top level"));
            }
        }

        Draft defaults;
        if (const Field* d = ScenarioValues::find(fields, "defaults")) {
            if (!d->value.IsMap()) {
                values_.fail(d->value_mark(),
                             "'defaults' must be a mapping of scenario keys, got " + node_kind(d->value));
            }
            for (const Field& f : values_.fields_of(d->value)) {
                if (f.key == "name") {
                    values_.fail(f.key_node.Mark(),
                                 "'name' cannot have a default; each scenario names itself");
                }
                apply(defaults, f, " in defaults");
            }
        }

        const Field* list = ScenarioValues::find(fields, "scenarios");
        if (list == nullptr) {
            values_.fail(root.Mark(), "missing required key 'scenarios'");
        }
        if (!list->value.IsSequence()) {
            values_.fail(list->value_mark(),
                         "'scenarios' must be a list of scenarios, got " + node_kind(list->value));
        }
        if (list->value.size() == 0) {
            values_.fail(list->value_mark(), "'scenarios' is empty; at least one scenario is required");
        }

        ScenarioFile file;
        file.path = values_.path();
        file.schema_version = v;
        std::map<std::string, YAML::Mark> names;
        std::uint64_t runs = 0;
        for (const YAML::Node& item : list->value) {
            Draft d = scenario(item, defaults);
            if (const auto first = names.find(d.s.name); first != names.end()) {
                values_.fail(d.name_mark, "duplicate scenario name " + in_quotes(d.s.name) +
                                              " (first used at line " +
                                              std::to_string(first->second.line + 1) + ")");
            }
            names.emplace(d.s.name, d.name_mark);
            // Checked before the plan is expanded: a 10 kB file could ask for 64M runs (bad_alloc).
            const std::uint64_t own = run_count(d.s);
            runs = own > max_planned_runs ? own : runs + own;
            if (runs > max_planned_runs) {
                values_.fail(
                    d.name_mark,
                    "the plan would have more than " + std::to_string(max_planned_runs) + " runs (scenario " +
                        in_quotes(d.s.name) + " alone expands to " +
                        (own == std::numeric_limits<std::uint64_t>::max() ? std::string("more than 2^64")
                                                                          : std::to_string(own)) +
                        "); split the file or shorten its lists (docs/scenario-format.md, Limits)");
            }
            file.scenarios.push_back(std::move(d.s));
        }
        return file;
    }

private:
    ScenarioValues values_;
    MetricNameCheck check_metric_;
    int version_ = scenario_schema_version;  // of the file being read

    static std::string versions_read() {
        return "versions " + std::to_string(kOldestSchemaVersion) +
               (scenario_schema_version - kOldestSchemaVersion == 1 ? " and " : " to ") +
               std::to_string(scenario_schema_version);
    }

    Draft scenario(const YAML::Node& item, const Draft& defaults) const {
        if (!item.IsMap()) {
            values_.fail(item.Mark(),
                         "each scenario must be a mapping (name: ..., kind: ...), got " + node_kind(item));
        }
        Draft d = defaults;
        d.s.where = SourceLocation{values_.path(), item.Mark().line + 1, item.Mark().column + 1};
        std::set<std::string> own;  // keys the scenario sets itself, not through defaults
        for (const Field& f : values_.fields_of(item)) {
            apply(d, f, " in scenario");
            own.insert(f.key);
        }
        for (std::string_view key : {"name", "kind", "api"}) {
            if (d.given.count(std::string(key)) == 0) {
                values_.fail(item.Mark(), "missing required key " + in_quotes(key) + " in scenario");
            }
        }
        read_kind_params(values_, d, item.Mark(), own.count("size") != 0);
        check_expect_models(values_, d);
        return d;
    }

    void apply(Draft& d, const Field& f, std::string_view where) const {
        Scenario& s = d.s;
        const YAML::Mark m = f.value_mark();
        if (f.key == "name") {
            s.name = values_.text(f.value, m, "name");
            const bool ok = !s.name.empty() && std::all_of(s.name.begin(), s.name.end(), [](char c) {
                return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                       c == '_' || c == '.' || c == '-';
            });
            if (!ok) {
                values_.fail(m, "scenario name " + in_quotes(s.name) +
                                    " may use only letters, digits, '_', '.' and '-'");
            }
            d.name_mark = m;
        } else if (f.key == "kind") {
            s.kind = values_.text(f.value, m, "kind");
            const KindSpec* kind = find_kind(s.kind);
            if (kind == nullptr) {
                values_.fail(m,
                             "unknown kind " + in_quotes(s.kind) + suggestion(s.kind, kind_names(), "kinds"));
            }
            if (kind->since_version > version_) {
                values_.fail(m, "kind " + in_quotes(s.kind) + " needs schema_version " +
                                    std::to_string(kind->since_version));
            }
        } else if (f.key == "description") {
            s.description = values_.text(f.value, m, "description");
        } else if (f.key == "api") {
            s.apis.clear();
            d.api_marks.clear();
            for (const auto& [n, nm] : values_.one_or_list(f)) {
                const std::string& spelling = values_.text(n, nm, "api");
                std::string why;
                const std::optional<ApiVariant> api = parse_api_variant(spelling, &why);
                if (!api) {
                    values_.fail(nm, why);
                }
                values_.push_unique(s.apis, *api, nm, "api", spelling);
                d.api_marks.push_back(nm);
            }
        } else if (f.key == "size") {
            s.sizes.clear();
            d.size_mark = f.key_node.Mark();
            for (const auto& [n, nm] : values_.one_or_list(f)) {
                values_.push_unique(s.sizes, values_.size(n, nm, "size"), nm, "size", n.Scalar());
            }
        } else if (f.key == "count" || f.key == "gpus") {
            std::vector<int>& out = f.key == "count" ? s.counts : s.gpus;
            out.clear();
            for (const auto& [n, nm] : values_.one_or_list(f)) {
                values_.push_unique(out, values_.integer(n, nm, f.key, 1), nm, f.key, n.Scalar());
            }
        } else if (f.key == "repeats") {
            s.repeats = values_.integer(f, "repeats", 1);
        } else if (f.key == "timeout_s") {
            s.timeout_s = values_.number(f.value, m, "timeout_s");
            if (s.timeout_s <= 0) {
                values_.fail(m, "timeout_s must be greater than 0, got " + f.value.Scalar());
            }
            if (s.timeout_s > max_timeout_s) {  // 1e16 s overflowed into "timed out after 0 s"
                values_.fail(m, "timeout_s must be at most " + format_number(max_timeout_s) +
                                    " (one week), got " + f.value.Scalar());
            }
        } else if (f.key == "driver_models") {
            s.driver_models.clear();
            for (const auto& [n, nm] : values_.one_or_list(f)) {
                const std::string& model = values_.text(n, nm, "driver model");
                if (!contains(kDriverModels, model)) {
                    values_.fail(nm, "unknown driver model " + in_quotes(model) +
                                         " (models: " + join(kDriverModels) + ")");
                }
                values_.push_unique(s.driver_models, model, nm, "driver_models", model);
            }
        } else if (f.key == "expect") {
            read_expect(values_, d, f, check_metric_);
        } else if (f.key == "params") {
            if (version_ < 2) {
                values_.fail(f.key_node.Mark(), "key 'params' needs schema_version 2");
            }
            if (!f.value.IsMap()) {
                values_.fail(f.value_mark(), "'params' must be a mapping of parameter names to values, got " +
                                                 node_kind(f.value));
            }
            d.params = f;
        } else {
            values_.fail(f.key_node.Mark(), unknown_key_message(f.key, kScenarioKeys, where));
        }
        d.given.insert(f.key);
    }
};

}  // namespace

ScenarioFile parse_scenario_text(const std::string& text, const std::string& path_for_messages,
                                 MetricNameCheck check_metric) {
    if (check_metric == nullptr) throw std::invalid_argument("parse_scenario_text: no metric name check");
    return Reader(path_for_messages, check_metric).read(text);
}

ScenarioFile load_scenario_file(const std::string& path, MetricNameCheck check_metric) {
    std::string text;
    try {
        text = read_file(path, input_limit::text);
    } catch (const SystemError& e) {
        throw InputError(e.what());  // a scenario that cannot be read is bad input (exit 2)
    }
    return parse_scenario_text(text, path, check_metric);
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

nlohmann::json to_json(const ScenarioFile& file) {
    nlohmann::json scenarios = nlohmann::json::array();
    for (const auto& s : file.scenarios) scenarios.push_back(to_json(s));
    return {{"path", file.path}, {"schema_version", file.schema_version}, {"scenarios", scenarios}};
}

}  // namespace pinbench
