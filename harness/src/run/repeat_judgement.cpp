#include "run/repeat_judgement.hpp"

#include <cstddef>
#include <cstdint>
#include <set>
#include <string>

#include "pinbench/results/run_metrics.hpp"

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

Agreement repeats_agree(const RunRecord& run, int min_agreeing) {
    for (const auto& r : run.repeats) {
        if (r.status != Status::ok) {
            return {false, "repeat " + std::to_string(r.index + 1) + " attempt " +
                               std::to_string(r.attempt + 1) + " was " + to_string(r.status) +
                               ": every repeat is measured"};
        }
    }
    const int n = static_cast<int>(run.repeats.size());
    if (n < min_agreeing) {
        return {false,
                std::to_string(n) + " repeat(s), " + std::to_string(min_agreeing) + " needed to agree"};
    }
    // Granules do not change a sample.
    int compared = 0;
    for (const auto& [name, m] : compute_run_metrics(run, {})) {
        if ((m.unit != "bytes" && m.unit != "count") || !m.samples) continue;
        const std::vector<double>& v = *m.samples;
        if (static_cast<int>(v.size()) != n) {
            return {false, name + " is missing in some repeats"};
        }
        for (double x : v) {
            if (x != v.front()) {
                return {false, name + " differs between repeats (" +
                                   std::to_string(static_cast<long long>(v.front())) + " and " +
                                   std::to_string(static_cast<long long>(x)) + ")"};
            }
        }
        ++compared;
    }
    if (compared == 0) return {false, "no bytes or count metric to agree on"};
    return {true, std::to_string(n) + " repeats identical to the byte on all " + std::to_string(compared) +
                      " bytes and count metrics"};
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
