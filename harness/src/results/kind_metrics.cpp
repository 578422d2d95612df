#include "results/kind_metrics.hpp"

#include <algorithm>
#include <functional>
#include <optional>
#include <set>

#include "pinbench/units.hpp"
#include "results/snapshot_cost.hpp"

namespace pinbench {
namespace {

using Repeats = std::vector<const RepeatRecord*>;
using Samples = std::vector<double>;
constexpr double kGiB = 1024.0 * 1024 * 1024;

// One sample per repeat, or nothing when any repeat lacks it: a metric over fewer repeats
// than the run has would hide the gap.
std::optional<Samples> per_repeat(const Repeats& ok,
                                  const std::function<std::optional<double>(const RepeatRecord&)>& f) {
    Samples out;
    for (const RepeatRecord* r : ok) {
        const auto v = f(*r);
        if (!v) return std::nullopt;
        out.push_back(*v);
    }
    return out;
}

// The memory keys worth a metric: every non-fixed key seen in any ok repeat.
std::set<std::string> memory_keys(const Repeats& ok) {
    std::set<std::string> keys;
    for (const RepeatRecord* r : ok) {
        for (const auto& s : r->snapshots) {
            for (const auto& [key, reading] : s.readings) {
                if (describe_key(key).direction != Direction::fixed) keys.insert(key);
            }
        }
    }
    return keys;
}

std::optional<double> number(const nlohmann::json& data, const char* name) {
    const auto it = data.find(name);
    if (it == data.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

class Sink {
public:
    Sink(const Granules& g, std::map<std::string, MetricSummary>& m) : granules_(g), metrics_(m) {}

    void put(const std::string& name, const char* unit, std::optional<Samples> samples,
             const std::string& key = {}) {
        if (!samples || samples->empty()) return;
        MetricSummary m;
        m.unit = unit;
        m.stats = *summarize(std::move(*samples));
        if (!key.empty()) {
            if (const auto g = granules_.find(key); g != granules_.end()) m.granule = g->second;
        }
        metrics_[name] = std::move(m);
    }
    // For each memory key: `prefix.<key>` from snapshot `from` to `to`, divided by `divisor`.
    void costs(const Repeats& ok, const std::string& prefix, const std::string& from, const std::string& to,
               double divisor = 1) {
        for (const std::string& key : memory_keys(ok)) {
            put(prefix + "." + key, "bytes",
                per_repeat(ok,
                           [&](const RepeatRecord& r) -> std::optional<double> {
                               const auto c = snapshot_cost(r, from, to, key);
                               if (!c) return std::nullopt;
                               return *c / divisor;
                           }),
                key);
        }
    }

private:
    const Granules& granules_;
    std::map<std::string, MetricSummary>& metrics_;
};

void capacity(const RunRecord& run, const Repeats& ok, Sink& sink) {
    // Repeats whose pin failed have no "with" side; they show in pin_failed instead.
    Repeats pinned;
    for (const RepeatRecord* r : ok) {
        if (!r->data.contains("pin_error")) pinned.push_back(r);
    }
    sink.put("capacity.pin_failed", "count",
             per_repeat(ok, [](const RepeatRecord& r) -> std::optional<double> {
                 return r.data.contains("pin_error") ? 1.0 : 0.0;
             }));
    sink.put("capacity.largest_without", "bytes",
             per_repeat(ok, [](const RepeatRecord& r) { return number(r.data, "largest_without"); }));
    sink.put("capacity.largest_with", "bytes",
             per_repeat(pinned, [](const RepeatRecord& r) { return number(r.data, "largest_with"); }));
    auto loss = [](const RepeatRecord& r) -> std::optional<double> {
        const auto a = number(r.data, "largest_without"), b = number(r.data, "largest_with");
        if (!a || !b) return std::nullopt;
        return *a - *b;
    };
    sink.put("capacity.loss", "bytes", per_repeat(pinned, loss));
    const double gib = static_cast<double>(run.run.size) / kGiB;
    sink.put("capacity.loss_per_gib", "bytes",
             per_repeat(pinned, [&](const RepeatRecord& r) -> std::optional<double> {
                 const auto l = loss(r);
                 if (!l || gib <= 0) return std::nullopt;
                 return *l / gib;
             }));
    sink.put("capacity.read_ratio", "ratio",
             per_repeat(ok, [](const RepeatRecord& r) -> std::optional<double> {
                 const auto ref = number(r.data, "read_gbps_reference");
                 const auto a = number(r.data, "read_gbps_without");
                 if (!ref || !a || *ref <= 0) return std::nullopt;
                 const auto b = number(r.data, "read_gbps_with");
                 return std::min(*a, b.value_or(*a)) / *ref;
             }));
}

void sweep(const Repeats& ok, Sink& sink) {
    const nlohmann::json& first = ok.front()->data;
    const std::string mode = first.value("mode", "");
    if (mode == "size_curve" && first.contains("sizes")) {
        std::vector<double> xs;
        for (const auto& s : first["sizes"]) xs.push_back(s.get<double>());
        for (const auto& s : first["sizes"]) {
            const std::string bytes = std::to_string(s.get<std::uint64_t>());
            sink.costs(ok, "sweep.cost." + bytes, "after_context", "size_" + bytes);
        }
        for (const std::string& key : memory_keys(ok)) {
            std::optional<Samples> slopes = Samples{}, bases = Samples{};
            for (const RepeatRecord* r : ok) {
                Samples x, y;
                for (double size : xs) {
                    const auto c = snapshot_cost(
                        *r, "after_context", "size_" + std::to_string(static_cast<std::uint64_t>(size)), key);
                    if (!c) break;
                    x.push_back(size / kGiB);
                    y.push_back(*c);
                }
                const auto fit = x.size() == xs.size() ? linear_fit(x, y) : std::nullopt;
                if (!fit) {
                    slopes.reset();
                    break;
                }
                slopes->push_back(fit->slope);
                bases->push_back(fit->intercept);
            }
            if (!slopes) continue;
            sink.put("sweep.slope_per_gib." + key, "bytes", slopes, key);
            sink.put("sweep.base." + key, "bytes", bases, key);
        }
    } else if (mode == "count_curve") {
        const int k_max = first.value("max_count", 0);
        for (int k = 1; k <= k_max; ++k) {
            sink.costs(ok, "sweep.cost.x" + std::to_string(k), "after_context", "count_" + std::to_string(k));
        }
        for (const std::string& key : memory_keys(ok)) {
            sink.put("sweep.steps." + key, "count",
                     per_repeat(ok, [&](const RepeatRecord& r) -> std::optional<double> {
                         std::set<double> levels;
                         for (int k = 1; k <= k_max; ++k) {
                             const auto c =
                                 snapshot_cost(r, "after_context", "count_" + std::to_string(k), key);
                             if (!c) return std::nullopt;
                             levels.insert(*c);
                         }
                         return static_cast<double>(levels.size());
                     }));
        }
    } else if (mode == "max_pinnable") {
        sink.put("sweep.max_pinnable", "bytes",
                 per_repeat(ok, [](const RepeatRecord& r) { return number(r.data, "max_pinnable"); }));
        // Against free VRAM (free_target): what was free when the search began, whether the cap
        // bounded it (then max_pinnable is a lower bound), and the share of host RAM it reached.
        sink.put("sweep.free_before", "bytes",
                 per_repeat(ok, [](const RepeatRecord& r) { return number(r.data, "free_before"); }));
        sink.put("sweep.capped", "ratio", per_repeat(ok, [](const RepeatRecord& r) -> std::optional<double> {
                     if (!r.data.contains("free_before")) return std::nullopt;
                     return r.data.value("capped", false) ? 1.0 : 0.0;
                 }));
        sink.put("sweep.max_pinnable_over_host_ram", "ratio",
                 per_repeat(ok, [](const RepeatRecord& r) -> std::optional<double> {
                     const auto pinned = number(r.data, "max_pinnable");
                     const auto ram = number(r.data, "host_ram_total");
                     if (!pinned || !ram || *ram <= 0) return std::nullopt;
                     return *pinned / *ram;
                 }));
        Repeats failed;
        for (const RepeatRecord* r : ok) {
            if (r->data.contains("small_after_failure")) failed.push_back(r);
        }
        sink.put("sweep.small_after_failure_ok", "ratio",
                 per_repeat(failed, [](const RepeatRecord& r) -> std::optional<double> {
                     return r.data["small_after_failure"].value("ok", false) ? 1.0 : 0.0;
                 }));
    }
}

void multi_gpu(const RunRecord& run, const Repeats& ok, Sink& sink) {
    // Held = what freeing returned, with every context present in both snapshots (for
    // order=before the baseline lacks the later contexts, so it cannot be the reference).
    sink.costs(ok, "multi_gpu.held", "after_free", "after_first_use");
    auto sum = [&](const RepeatRecord& r) -> std::optional<double> {
        double total = 0;
        for (int d = 0; d < run.run.gpus; ++d) {
            // NVML index of CUDA device d as the child matched it (by UUID); older files: d.
            const auto& indices = r.data.value("nvml_indices", nlohmann::json::array());
            if (d < static_cast<int>(indices.size()) && !indices[d].is_number_unsigned()) return std::nullopt;
            const int nvml_index = d < static_cast<int>(indices.size()) ? indices[d].get<int>() : d;
            const auto c = snapshot_cost(r, "after_free", "after_first_use",
                                         "nvml." + std::to_string(nvml_index) + ".used");
            if (!c) return std::nullopt;
            total += *c;
        }
        return total;
    };
    sink.put("multi_gpu.cost_sum.nvml.used", "bytes", per_repeat(ok, sum));
    sink.put("multi_gpu.cost_per_device.nvml.used", "bytes",
             per_repeat(ok, [&](const RepeatRecord& r) -> std::optional<double> {
                 const auto s = sum(r);
                 if (!s) return std::nullopt;
                 return *s / run.run.gpus;
             }));
}

void workers(const Repeats& ok, Sink& sink) {
    const nlohmann::json& first = ok.front()->data;
    const int n = first.value("workers", 0);
    if (first.value("variant", "") == "framework") {
        sink.put("workers.framework_pinned_bytes", "bytes", per_repeat(ok, [](const RepeatRecord& r) {
                     return number(r.data, "framework_pinned_bytes");
                 }));
        sink.costs(ok, "workers.framework_cost", "contexts", "pinned");
        return;
    }
    if (n <= 0) return;  // no workers: nothing per worker (never a 0)
    sink.costs(ok, "workers.context_per_worker", "after_context", "contexts", n);
    // Since results version 3 the context is read alone, before each worker's GPU-use workspace
    // ("workspaces"); older files have the workspace inside "contexts".
    const bool apart = !ok.empty() && std::any_of(ok.front()->snapshots.begin(), ok.front()->snapshots.end(),
                                                  [](const Snapshot& s) { return s.label == "workspaces"; });
    if (apart) sink.costs(ok, "workers.workspace_per_worker", "contexts", "workspaces", n);
    sink.costs(ok, "workers.pinned_per_worker", apart ? "workspaces" : "contexts", "pinned", n);
}

void churn(const Repeats& ok, Sink& sink) {
    const int cycles = ok.front()->data.value("cycles", 0);
    if (cycles < 1) return;
    const std::string last = "cycle_" + std::to_string(cycles);
    for (const std::string& key : memory_keys(ok)) {
        sink.put("churn.creep." + key, "bytes",
                 per_repeat(ok,
                            [&](const RepeatRecord& r) -> std::optional<double> {
                                const auto a = snapshot_cost(r, "after_context", "cycle_1", key);
                                const auto b = snapshot_cost(r, "after_context", last, key);
                                if (!a || !b) return std::nullopt;
                                return *b - *a;
                            }),
                 key);
        sink.put("churn.max." + key, "bytes",
                 per_repeat(ok,
                            [&](const RepeatRecord& r) -> std::optional<double> {
                                std::optional<double> highest;
                                for (int i = 1; i <= cycles; ++i) {
                                    const auto c =
                                        snapshot_cost(r, "after_context", "cycle_" + std::to_string(i), key);
                                    if (!c) return std::nullopt;
                                    highest = std::max(highest.value_or(*c), *c);
                                }
                                return highest;
                            }),
                 key);
    }
    sink.costs(ok, "churn.residual_after_wait", "after_context", "final");
}

void fragmentation(const Repeats& ok, Sink& sink) {
    auto field = [&](const char* name) {
        return per_repeat(ok, [name](const RepeatRecord& r) { return number(r.data, name); });
    };
    auto diff = [&](const char* a, const char* b) {
        return per_repeat(ok, [a, b](const RepeatRecord& r) -> std::optional<double> {
            const auto x = number(r.data, a), y = number(r.data, b);
            if (!x || !y) return std::nullopt;
            return *x - *y;
        });
    };
    sink.put("fragmentation.largest_before", "bytes", field("largest_before"));
    sink.put("fragmentation.largest_after", "bytes", field("largest_after"));
    sink.put("fragmentation.largest_loss", "bytes", diff("largest_before", "largest_after"));
    sink.put("fragmentation.free_loss", "bytes", diff("free_before", "free_after"));
}

void shared(const Repeats& ok, Sink& sink) {
    const int p = ok.front()->data.value("processes", 0);
    sink.costs(ok, "shared.device_cost", "contexts", "pinned");
    if (p > 0) sink.costs(ok, "shared.per_process_cost", "contexts", "pinned", p);
}

void register_window(const Repeats& ok, Sink& sink) {
    sink.costs(ok, "register_window.peak", "after_context", "registered");
    sink.put("register_window.time_ratio", "ratio",
             per_repeat(ok, [](const RepeatRecord& r) -> std::optional<double> {
                 const auto k = r.timings_ms.find("kept_per_transfer");
                 const auto w = r.timings_ms.find("windowed_per_transfer");
                 if (k == r.timings_ms.end() || w == r.timings_ms.end() || k->second <= 0)
                     return std::nullopt;
                 return w->second / k->second;
             }));
}

}  // namespace

void add_kind_metrics(const RunRecord& run, const Repeats& ok, const Granules& granules,
                      std::map<std::string, MetricSummary>& metrics) {
    if (ok.empty()) return;
    Sink sink(granules, metrics);
    const std::string& kind = run.run.kind;
    if (kind == "capacity") capacity(run, ok, sink);
    if (kind == "sweep") sweep(ok, sink);
    if (kind == "multi_gpu") multi_gpu(run, ok, sink);
    if (kind == "workers") workers(ok, sink);
    if (kind == "churn") churn(ok, sink);
    if (kind == "fragmentation") fragmentation(ok, sink);
    if (kind == "shared") shared(ok, sink);
    if (kind == "register_window") register_window(ok, sink);
}

}  // namespace pinbench
