// The kind table of docs/kinds.md. Adding a kind or a parameter is an entry here (and a row
// there); the parser and the plan expansion read only this table.
#include "scenario/kinds.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>

#include "pinbench/units.hpp"

namespace pinbench {
namespace {

constexpr std::uint64_t MiB = std::uint64_t{1024} * 1024;

ParamSpec size_param(std::string_view name, bool required, nlohmann::json fallback = nullptr) {
    ParamSpec p;
    p.name = name;
    p.type = ParamType::size;
    p.required = required;
    p.fallback = std::move(fallback);
    return p;
}

ParamSpec integer_param(std::string_view name, int min, bool required, nlohmann::json fallback = nullptr) {
    ParamSpec p;
    p.name = name;
    p.type = ParamType::integer;
    p.min = min;
    p.required = required;
    p.fallback = std::move(fallback);
    return p;
}

ParamSpec number_param(std::string_view name, double min, bool exclusive, bool required,
                       nlohmann::json fallback = nullptr) {
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
                       nlohmann::json fallback = nullptr) {
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

std::vector<KindSpec> build() {
    std::vector<KindSpec> kinds;
    kinds.push_back({"overhead", 1, {}, std::nullopt});

    kinds.push_back({"capacity",
                     2,
                     {size_param("free_target", true), size_param("resolution", false, 2 * MiB)},
                     std::nullopt});

    ParamSpec start = when(size_param("start", true), "mode", "size_curve");
    start.not_above = "stop";
    ParamSpec stop = when(size_param("stop", true), "mode", "size_curve");
    stop.is_run_size = true;
    ParamSpec step = when(size_param("step", false), "mode", "size_curve");
    step.one_of_group = "step/factor";
    ParamSpec factor = when(number_param("factor", 1, true, false), "mode", "size_curve");
    factor.one_of_group = "step/factor";
    ParamSpec cap = when(size_param("cap", true), "mode", "max_pinnable");
    cap.is_run_size = true;
    // max_pinnable with device memory filled first until free_target is left ("all" or absent:
    // no fill; absent keeps the run ids of files written before the parameter existed).
    ParamSpec free_target = when(axis(size_param("free_target", false)), "mode", "max_pinnable");
    free_target.words = {"all"};
    ParamSpec host_limit = when(size_param("host_limit", false), "mode", "max_pinnable");
    host_limit.not_above = "cap";
    kinds.push_back({"sweep",
                     2,
                     {choice_param("mode", {"size_curve", "count_curve", "max_pinnable"}, true), start, stop,
                      step, factor, when(integer_param("max_count", 1, true), "mode", "count_curve"), cap,
                      when(number_param("time_limit_s", 0, true, false, 60.0), "mode", "max_pinnable"),
                      free_target, host_limit,
                      // No fallbacks: the child's defaults (off, 2 MiB) keep older plans as they were.
                      when(choice_param("enforce_host_limit", {"off", "on"}, false), "mode", "max_pinnable"),
                      when(size_param("resolution", false), "mode", "max_pinnable")},
                     std::nullopt});

    kinds.push_back({"multi_gpu",
                     2,
                     {axis(choice_param("order", {"before", "after"}, false, "after")),
                      axis(choice_param("peer_access", {"on", "off"}, false, "off"))},
                     std::nullopt});

    kinds.push_back({"workers",
                     2,
                     {axis(integer_param("workers", 0, true)),
                      axis(choice_param("variant", {"per_process", "framework"}, false, "per_process")),
                      when(integer_param("prefetch_factor", 1, false, 2), "variant", "framework")},
                     std::nullopt});

    kinds.push_back({"churn",
                     2,
                     {integer_param("cycles", 1, true),
                      axis(choice_param("settle", {"immediate", "settled"}, false,
                                        nlohmann::json::array({"immediate", "settled"}))),
                      number_param("final_wait_s", 0, false, false, 2.0)},
                     std::nullopt});

    kinds.push_back({"fragmentation",
                     2,
                     {integer_param("cycles", 1, true), size_param("resolution", false, 2 * MiB)},
                     std::nullopt});

    kinds.push_back({"shared",
                     2,
                     {axis(integer_param("processes", 1, true)),
                      axis(choice_param("variant", {"shared", "private"}, false,
                                        nlohmann::json::array({"shared", "private"})))},
                     Condition{"variant", "shared"}});

    kinds.push_back({"register_window", 2, {integer_param("transfers", 1, false, 16)}, Condition{}});
    return kinds;
}

}  // namespace

const std::vector<KindSpec>& kind_specs() {
    static const std::vector<KindSpec> kinds = build();
    return kinds;
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
            return value.get<std::string>();
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
