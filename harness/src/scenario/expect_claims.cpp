#include "scenario/expect_claims.hpp"

#include <algorithm>
#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "scenario/did_you_mean.hpp"

namespace pinbench {
namespace {

constexpr std::array<std::string_view, 4> kExpectKeys{"metrics", "max_overhead_ratio", "min_overhead_ratio",
                                                      "max_overhead_bytes"};

// metrics: {METRIC: {min: V, max: V}}, V a plain number (ratio, count, ms) or a size with a
// unit (bytes). A claim about any kind's metric (docs/kinds.md), judged on the run's median.
nlohmann::json metric_limits(const ScenarioValues& values, const Field& f, MetricNameCheck check_metric) {
    if (!f.value.IsMap() || f.value.size() == 0) {
        values.fail(
            f.value_mark(),
            "'metrics' must be a non-empty mapping of metric name to {min, max}, got " + node_kind(f.value));
    }
    static constexpr std::array<std::string_view, 2> kBounds{"min", "max"};
    nlohmann::json out = nlohmann::json::object();
    for (const Field& metric : values.fields_of(f.value)) {
        const bool named = !metric.key.empty() && metric.key.find('.') != std::string::npos &&
                           metric.key.find(' ') == std::string::npos;
        if (!named) {
            values.fail(metric.key_node.Mark(), "metric name " + in_quotes(metric.key) +
                                                    " is not a metric name such as 'churn.creep.cuda.free'");
        }
        // A typo would be a claim no run can judge.
        if (const std::optional<std::string> why = check_metric(metric.key)) {
            values.fail(metric.key_node.Mark(), *why);
        }
        if (!metric.value.IsMap() || metric.value.size() == 0) {
            values.fail(metric.value_mark(), "limits of " + in_quotes(metric.key) +
                                                 " must be a mapping with min and/or max, got " +
                                                 node_kind(metric.value));
        }
        nlohmann::json bounds = nlohmann::json::object();
        for (const Field& bound : values.fields_of(metric.value)) {
            if (!contains(kBounds, bound.key)) {
                values.fail(bound.key_node.Mark(),
                            unknown_key_message(bound.key, kBounds, " in metric limits"));
            }
            const YAML::Mark bm = bound.value_mark();
            const bool sized = bound.value.IsScalar() && is_plain(bound.value) &&
                               bound.value.Scalar().find_first_of("BKMGT") != std::string::npos;
            bounds[bound.key] = sized ? static_cast<double>(values.size(bound.value, bm, bound.key))
                                      : values.number(bound.value, bm, bound.key);
        }
        if (bounds.contains("min") && bounds.contains("max") &&
            bounds["min"].get<double>() > bounds["max"].get<double>()) {
            values.fail(metric.value_mark(), "min is greater than max for " + in_quotes(metric.key));
        }
        out[metric.key] = std::move(bounds);
    }
    return out;
}

}  // namespace

// expect: {MODEL: {max_overhead_ratio: x, min_overhead_ratio: y, max_overhead_bytes: SIZE,
//                  metrics: {METRIC: {min: V, max: V}}}}
void read_expect(const ScenarioValues& values, Draft& d, const Field& f, MetricNameCheck check_metric) {
    if (!f.value.IsMap()) {
        values.fail(f.value_mark(),
                    "'expect' must be a mapping of driver model to limits, got " + node_kind(f.value));
    }
    d.s.expect = nlohmann::json::object();
    d.expect_marks.clear();
    for (const Field& model : values.fields_of(f.value)) {
        if (!contains(kDriverModels, model.key)) {
            values.fail(model.key_node.Mark(), "unknown driver model " + in_quotes(model.key) +
                                                   " in expect (models: " + join(kDriverModels) + ")");
        }
        if (!model.value.IsMap() || model.value.size() == 0) {
            values.fail(model.value_mark(), "expect for " + in_quotes(model.key) +
                                                " must be a non-empty mapping of limits (" +
                                                join(kExpectKeys) + ")");
        }
        nlohmann::json limits = nlohmann::json::object();
        const std::vector<Field> limit_fields = values.fields_of(model.value);
        for (const Field& limit : limit_fields) {
            const YAML::Mark m = limit.value_mark();
            if (limit.key == "metrics") {
                limits[limit.key] = metric_limits(values, limit, check_metric);
            } else if (limit.key == "max_overhead_bytes") {
                limits[limit.key] = values.size(limit.value, m, "max_overhead_bytes");
            } else if (limit.key == "max_overhead_ratio" || limit.key == "min_overhead_ratio") {
                const double ratio = values.number(limit.value, m, limit.key);
                if (ratio < 0) {
                    values.fail(m, limit.key + " must be 0 or more, got " + limit.value.Scalar());
                }
                limits[limit.key] = ratio;
            } else {
                values.fail(limit.key_node.Mark(), unknown_key_message(limit.key, kExpectKeys, " in expect"));
            }
        }
        if (limits.contains("min_overhead_ratio") && limits.contains("max_overhead_ratio") &&
            limits["min_overhead_ratio"].get<double>() > limits["max_overhead_ratio"].get<double>()) {
            values.fail(ScenarioValues::find(limit_fields, "min_overhead_ratio")->value_mark(),
                        "min_overhead_ratio is greater than max_overhead_ratio for " + in_quotes(model.key));
        }
        d.s.expect[model.key] = std::move(limits);
        d.expect_marks[model.key] = model.key_node.Mark();
    }
}

void check_expect_models(const ScenarioValues& values, const Draft& d) {
    if (d.s.driver_models.empty()) return;
    for (const auto& [model, mark] : d.expect_marks) {
        if (std::find(d.s.driver_models.begin(), d.s.driver_models.end(), model) == d.s.driver_models.end()) {
            values.fail(mark,
                        "expect for " + in_quotes(model) + ", which is not in this scenario's driver_models");
        }
    }
}

}  // namespace pinbench
