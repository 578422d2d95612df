#include "run/repeat_judgement.hpp"

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

namespace pinbench {
namespace {

// A repeat's disturbance record, or an empty one to add evidence to.
nlohmann::json disturbance_or_empty(const RepeatRecord& r) {
    return r.disturbance.is_object()
               ? r.disturbance
               : nlohmann::json{{"probes", nlohmann::json::array()}, {"evidence", nlohmann::json::array()}};
}

}  // namespace

bool per_process_probe_judges(const nlohmann::json& controls) {
    const nlohmann::json host = controls.value("positive_host", nlohmann::json::object());
    const nlohmann::json costs = host.value("dedicated_cost", nlohmann::json::object());
    for (const auto& [key, cost] : costs.items()) {
        if (!is_device_level_key(key) && cost.is_number_integer() && cost.get<std::int64_t>() > 0) {
            return true;
        }
    }
    return false;
}

bool disturbs_judgement(const Disturbance& d, const WatchPlan& plan, bool per_process_judges) {
    if (!d.any() || per_process_judges) return false;
    for (unsigned dev : d.devices) {
        if (plan.judged_devices.contains(dev)) return true;
    }
    return false;
}

std::vector<int> mark_outliers(std::vector<RepeatRecord>& repeats, const WatchPlan& plan) {
    std::vector<const RepeatRecord*> ok;
    std::vector<std::size_t> where;
    for (std::size_t j = 0; j < repeats.size(); ++j) {
        if (repeats[j].status == Status::ok) {
            ok.push_back(&repeats[j]);
            where.push_back(j);
        }
    }
    std::vector<std::string> why;
    const auto odd = cost_outliers(ok, plan.judged_devices, plan.cuda0, plan.tolerance, &why);
    std::vector<int> marked;
    for (std::size_t n = 0; n < odd.size(); ++n) {
        RepeatRecord& r = repeats[where[odd[n]]];
        r.status = Status::disturbed;
        r.error = why[n];
        nlohmann::json ev = disturbance_or_empty(r);
        ev["evidence"].push_back({{"what", "outlier"}, {"text", why[n]}});
        r.disturbance = ev;
        marked.push_back(r.index);
    }
    return marked;
}

void mark_unverified(std::vector<RepeatRecord>& repeats) {
    std::vector<RepeatRecord*> ok;
    for (auto& r : repeats) {
        if (r.status == Status::ok) ok.push_back(&r);
    }
    if (ok.empty() || ok.size() >= 3) return;
    const std::string why =
        "NVML gives no process list and " + std::to_string(ok.size()) +
        " clean repeat(s) cannot show that they agree (3 needed): device-level costs not judged";
    for (RepeatRecord* r : ok) {
        nlohmann::json d = disturbance_or_empty(*r);
        std::set<std::string> probes;
        for (const auto& p : d["probes"]) probes.insert(p.get<std::string>());
        for (const auto& s : r->snapshots) {
            for (const auto& [key, reading] : s.readings) {
                if (is_device_level_key(key) && describe_key(key).direction != Direction::fixed) {
                    probes.insert(key);
                }
            }
        }
        d["probes"] = probes;
        d["evidence"].push_back({{"what", "unverified"}, {"text", why}});
        r->disturbance = d;
    }
}

nlohmann::json run_disturbance(const std::vector<RepeatRecord>& repeats, int attempts,
                               int disturbed_attempts) {
    nlohmann::json evidence = nlohmann::json::array();
    std::set<std::string> probes;
    for (const auto& r : repeats) {
        if (r.status != Status::disturbed || !r.disturbance.is_object()) continue;
        for (const auto& p : r.disturbance.value("probes", nlohmann::json::array())) {
            probes.insert(p.get<std::string>());
        }
        for (const auto& e : r.disturbance["evidence"]) {
            if (evidence.size() < 20) evidence.push_back(e);
        }
    }
    return {{"attempts", attempts},
            {"disturbed_attempts", disturbed_attempts},
            {"probes", probes},
            {"evidence", evidence}};
}

}  // namespace pinbench
