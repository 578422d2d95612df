// The metric catalog (pinbench/results/metric_catalog.hpp): the generic metrics of run_metrics.cpp here,
// each kind's own from its definition (KindSpec::metrics, kinds/<kind>.cpp). A metric written
// without an entry fails CTest MetricCatalog.EveryMetricOfTheCommittedResultsIsCatalogued.
#include "pinbench/results/metric_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <string>

#include "cuda/traced_apis.hpp"
#include "pinbench/probes/snapshot.hpp"
#include "scenario/kind_spec.hpp"
#include "scenario/kind_table.hpp"

namespace pinbench {
namespace {

// Every kind's allocation costs and residuals (run_metrics.cpp), ahead of the kinds' own
// entries; `allocation_kinds` names the kinds whose snapshots give the allocation costs.
std::vector<MetricSpec> generic_head(std::string_view allocation_kinds) {
    return {
        {"cost.after_alloc.<key>", allocation_kinds, "bytes", higher_is_worse, false,
         "cost of the allocation alone", probe_budget},
        {"cost.after_first_use.<key>", allocation_kinds, "bytes", higher_is_worse, true,
         "cost once the GPU used the buffer", probe_budget},
        {"residual.after_free.<key>", "*", "bytes", higher_is_worse, false, "what freeing did not give back",
         probe_budget},
    };
}

// After the kinds' entries: a kind's own timings (register_window's) match first.
const MetricSpec generic_timing{
    "time.<timing>_ms", "*",   "ms",
    higher_is_worse,    false, "a timing of the repeat (alloc, first_touch, pin, free, ...)",
    no_budget};

// A kind's entry without a budget: the probe key's where the pattern has one, none where the
// unit is not bytes; "" (CTest MetricCatalog.* fails) for bytes with no key.
std::string_view budget_of(const KindMetric& m) {
    if (!m.budget.empty()) return m.budget;
    if (m.pattern.find("<key>") != std::string_view::npos) return probe_budget;
    return m.unit == "bytes" ? std::string_view() : no_budget;
}

std::string_view report_place_name(ReportPlace p) {
    switch (p) {
        case ReportPlace::section:
            return "section";
        case ReportPlace::optional_section:
            return "optional_section";
        case ReportPlace::cost_and_rule:
            break;
    }
    return "cost_and_rule";
}

std::vector<MetricSpec> build() {
    static const std::string allocation_kinds = [] {
        std::string names;
        for (const KindSpec& k : kind_specs()) {
            if (!k.writes_allocation_costs) continue;
            if (!names.empty()) names += ' ';
            names += k.name;
        }
        return names;
    }();
    std::vector<MetricSpec> catalog = generic_head(allocation_kinds);
    for (const KindSpec& k : kind_specs()) {
        for (const KindMetric& m : k.metrics) {
            catalog.push_back({m.pattern, k.name, m.unit, m.direction, m.headline, m.what, budget_of(m)});
        }
    }
    catalog.push_back(generic_timing);
    return catalog;
}

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Matches `name` from `n` against `pattern` from `p`; placeholders take what their class allows.
bool match(std::string_view pattern, std::string_view name) {
    if (pattern.empty()) return name.empty();
    if (pattern.front() != '<') {
        return !name.empty() && name.front() == pattern.front() && match(pattern.substr(1), name.substr(1));
    }
    const auto close = pattern.find('>');
    const std::string_view hole = pattern.substr(1, close - 1), rest = pattern.substr(close + 1);
    // The shortest filling that lets the rest match (a probe key contains dots; the others do not).
    for (std::size_t len = 1; len <= name.size(); ++len) {
        const char c = name[len - 1];
        const bool ok = hole == "key"      ? (is_word(c) || c == '.')
                        : hole == "timing" ? is_word(c)
                                           : std::isdigit(static_cast<unsigned char>(c));
        if (!ok) break;
        if (match(rest, name.substr(len))) return true;
    }
    return false;
}

bool written_by(const MetricSpec& spec, std::string_view kind) {
    if (spec.kinds == "*") return true;
    for (std::size_t at = 0; at <= spec.kinds.size();) {
        const auto end = std::min(spec.kinds.find(' ', at), spec.kinds.size());
        if (spec.kinds.substr(at, end - at) == kind) return true;
        at = end + 1;
    }
    return false;
}

// A kind's parameter as its table declares it (scenario/kind_spec.hpp): what pinreport and the
// editors' schema (scenarios/make_schema.py) read instead of a copy.
nlohmann::json param_json(const ParamSpec& p) {
    static constexpr const char* type_names[] = {"size", "integer", "number", "choice", "text", "texts"};
    nlohmann::json out = {{"name", p.name},
                          {"type", type_names[static_cast<int>(p.type)]},
                          {"axis", p.axis},
                          {"required", p.required},
                          {"fallback", p.fallback}};
    if (p.type == ParamType::integer || p.type == ParamType::number) {
        out["min"] = p.min;
        out["min_exclusive"] = p.min_exclusive;
    }
    if (!p.choices.empty()) out["choices"] = p.choices;
    if (!p.words.empty()) out["words"] = p.words;
    if (!p.when.always()) out["when"] = {{"param", p.when.param}, {"value", p.when.value}};
    if (!p.one_of_group.empty()) out["one_of_group"] = p.one_of_group;
    if (!p.not_above.empty()) out["not_above"] = p.not_above;
    if (p.is_run_size) out["is_run_size"] = true;
    return out;
}

}  // namespace

const std::vector<MetricSpec>& metric_catalog() {
    static const std::vector<MetricSpec> catalog = build();
    return catalog;
}

const MetricSpec* find_metric_spec(std::string_view kind, std::string_view metric) {
    for (const MetricSpec& spec : metric_catalog()) {
        if (written_by(spec, kind) && match(spec.pattern, metric)) return &spec;
    }
    return nullptr;
}

nlohmann::json metric_catalog_json() {
    nlohmann::json kinds = nlohmann::json::array();
    for (const KindSpec& k : kind_specs()) {
        nlohmann::json params = nlohmann::json::array();
        for (const ParamSpec& p : k.params) params.push_back(param_json(p));
        kinds.push_back({{"name", k.name},
                         {"report", report_place_name(k.report)},
                         {"title", k.title},
                         {"charts", k.charts},
                         {"since_version", k.since_version},
                         {"params", params},
                         {"allocation_costs", k.writes_allocation_costs},
                         {"reservation_rule", k.reservation_rule},
                         {"quantum_param", k.quantum_param}});
    }
    const KeyRule& rule = key_rule();
    const nlohmann::json probe_keys = {{"available_suffixes", rule.available_suffixes},
                                       {"fixed_suffixes", rule.fixed_suffixes},
                                       {"shared_prefixes", rule.shared_prefixes},
                                       {"shared_suffixes", rule.shared_suffixes}};
    // The traced driver entry points (docs/trace.md): each one's family and effect, and each
    // family's store API variants, which pinreport's trace module reads instead of a copy.
    nlohmann::json trace_apis = nlohmann::json::array();
    nlohmann::json trace_families = nlohmann::json::object();
    for (const char* api : trace::kTracedApis) {
        const std::string family = trace::api_family(api);
        trace_apis.push_back({{"api", api}, {"family", family}, {"effect", trace::api_effect(api)}});
        trace_families[family] = trace::family_api_variants(family);
    }
    nlohmann::json metrics = nlohmann::json::array();
    for (const MetricSpec& s : metric_catalog()) {
        metrics.push_back({{"pattern", s.pattern},
                           {"kinds", s.kinds},
                           {"unit", s.unit},
                           {"direction", s.direction},
                           {"headline", s.headline},
                           {"what", s.what},
                           {"budget", s.budget}});
    }
    return {{"metric_catalog_version", metric_catalog_version},
            {"kinds", kinds},
            {"probe_keys", probe_keys},
            {"trace_apis", trace_apis},
            {"trace_families", trace_families},
            {"metrics", metrics}};
}

}  // namespace pinbench
