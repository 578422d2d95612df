// Whether some kind writes a metric name, and the closest catalogued name where none does: the
// check the scenario parser is handed for the metric names of `expect` claims.
#include <algorithm>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pinbench/results/metric_catalog.hpp"
#include "scenario/did_you_mean.hpp"
#include "scenario/kind_table.hpp"

namespace pinbench {
namespace {

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

bool known_metric(std::string_view name) {
    for (const KindSpec& k : kind_specs()) {
        if (find_metric_spec(k.name, name) != nullptr) return true;
    }
    return false;
}

}  // namespace

std::optional<std::string> unknown_metric_reason(std::string_view metric) {
    if (known_metric(metric)) return std::nullopt;
    std::string best;
    std::size_t best_distance = std::numeric_limits<std::size_t>::max();
    for (const MetricSpec& m : metric_catalog()) {
        std::string candidate = filled_pattern(m.pattern, metric);
        const std::size_t d = edit_distance(metric, candidate);
        if (d < best_distance) {
            best_distance = d;
            best = std::move(candidate);
        }
    }
    const std::string head = "unknown metric " + in_quotes(metric) + ": no kind writes it";
    if (best_distance <= std::max<std::size_t>(2, metric.size() / 8)) {
        return head + "; did you mean " + in_quotes(best) + "?";
    }
    return head + " (`pinbench metrics` lists every metric)";
}

}  // namespace pinbench
