// The metric catalog (pinbench/metric_catalog.hpp). A metric kind_metrics.cpp or run_metrics.cpp
// writes without an entry here fails CTest MetricCatalog.EveryMetricOfTheCommittedResultsIsCatalogued.
#include "pinbench/metric_catalog.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace pinbench {
namespace {

constexpr std::string_view worse = "higher_is_worse", better = "higher_is_better", neither = "neither";

std::vector<MetricSpec> build() {
    return {
        // overhead, and every kind's held and residual costs (run_metrics.cpp)
        {"cost.after_alloc.<key>", "overhead multi_gpu", "bytes", worse, false,
         "cost of the allocation alone"},
        {"cost.after_first_use.<key>", "overhead multi_gpu", "bytes", worse, true,
         "cost once the GPU used the buffer"},
        {"residual.after_free.<key>", "*", "bytes", worse, false, "what freeing did not give back"},
        // register_window (ahead of the generic timing pattern: the first match wins)
        {"register_window.peak.<key>", "register_window", "bytes", worse, true,
         "cost with the window registered"},
        {"time.kept_per_transfer_ms", "register_window", "ms", worse, true, "per transfer, registered once"},
        {"time.windowed_per_transfer_ms", "register_window", "ms", worse, true,
         "per transfer, registered each time"},
        {"register_window.time_ratio", "register_window", "ratio", worse, true,
         "windowed over kept time per transfer"},
        {"time.<timing>_ms", "*", "ms", worse, false,
         "a timing of the repeat (alloc, first_touch, pin, free, ...)"},
        // capacity
        {"capacity.largest_without", "capacity", "bytes", better, true,
         "largest cudaMalloc block, nothing pinned"},
        {"capacity.largest_with", "capacity", "bytes", better, true,
         "largest cudaMalloc block with the buffer pinned"},
        {"capacity.loss", "capacity", "bytes", worse, true, "largest_without - largest_with"},
        {"capacity.loss_per_gib", "capacity", "bytes", worse, true, "loss per pinned GiB"},
        {"capacity.read_ratio", "capacity", "ratio", better, true,
         "read speed of the block found vs ordinary memory"},
        {"capacity.pin_failed", "capacity", "count", neither, true, "repeats whose pin failed"},
        // sweep
        {"sweep.cost.<bytes>.<key>", "sweep", "bytes", worse, false, "size_curve: cost at one size"},
        {"sweep.slope_per_gib.<key>", "sweep", "bytes", worse, true,
         "size_curve: least-squares cost per GiB"},
        {"sweep.base.<key>", "sweep", "bytes", worse, true, "size_curve: the fit's intercept"},
        {"sweep.cost.x<k>.<key>", "sweep", "bytes", worse, false, "count_curve: cost with k buffers held"},
        {"sweep.steps.<key>", "sweep", "count", neither, true, "count_curve: distinct cost levels"},
        {"sweep.max_pinnable", "sweep", "bytes", better, true, "max_pinnable: the largest size pinned"},
        {"sweep.free_before", "sweep", "bytes", neither, true,
         "max_pinnable: free VRAM when the search began"},
        {"sweep.capped", "sweep", "ratio", neither, true, "max_pinnable: repeats whose cap pinned at once"},
        {"sweep.max_pinnable_over_host_ram", "sweep", "ratio", better, true,
         "max_pinnable over the host's RAM"},
        {"sweep.small_after_failure_ok", "sweep", "ratio", better, true,
         "a 64 MiB pin after a failed one worked"},
        // multi_gpu
        {"multi_gpu.held.<key>", "multi_gpu", "bytes", worse, false,
         "what freeing returned, every context present"},
        {"multi_gpu.cost_sum.nvml.used", "multi_gpu", "bytes", worse, true, "cost summed over the GPUs"},
        {"multi_gpu.cost_per_device.nvml.used", "multi_gpu", "bytes", worse, true, "cost per GPU"},
        // workers
        {"workers.context_per_worker.<key>", "workers", "bytes", worse, true, "a worker's CUDA context"},
        {"workers.workspace_per_worker.<key>", "workers", "bytes", worse, true,
         "a worker's GPU-use workspace"},
        {"workers.pinned_per_worker.<key>", "workers", "bytes", worse, true, "a worker's pinned buffer"},
        {"workers.framework_pinned_bytes", "workers", "bytes", worse, true,
         "framework: bytes the allocator pinned"},
        {"workers.framework_cost.<key>", "workers", "bytes", worse, true, "framework: their device cost"},
        // churn
        {"churn.creep.<key>", "churn", "bytes", worse, true, "cost growth over the cycles"},
        {"churn.max.<key>", "churn", "bytes", worse, true, "the largest cost seen"},
        {"churn.residual_after_wait.<key>", "churn", "bytes", worse, true, "left after the final wait"},
        // fragmentation
        {"fragmentation.largest_before", "fragmentation", "bytes", better, true,
         "largest block before the cycles"},
        {"fragmentation.largest_after", "fragmentation", "bytes", better, true, "largest block after them"},
        {"fragmentation.largest_loss", "fragmentation", "bytes", worse, true,
         "largest_before - largest_after"},
        {"fragmentation.free_loss", "fragmentation", "bytes", worse, true,
         "free memory lost over the cycles"},
        // shared
        {"shared.device_cost.<key>", "shared", "bytes", worse, true, "cost of all processes together"},
        {"shared.per_process_cost.<key>", "shared", "bytes", worse, true, "cost per process"},
    };
}

bool is_word(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Matches `name` from `n` against `pattern` from `p`; placeholders take what their class allows.
bool match(std::string_view pattern, std::string_view name) {
    if (pattern.empty()) return name.empty();
    if (pattern.front() != '<')
        return !name.empty() && name.front() == pattern.front() && match(pattern.substr(1), name.substr(1));
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
    nlohmann::json metrics = nlohmann::json::array();
    for (const MetricSpec& s : metric_catalog()) {
        metrics.push_back({{"pattern", s.pattern},
                           {"kinds", s.kinds},
                           {"unit", s.unit},
                           {"direction", s.direction},
                           {"headline", s.headline},
                           {"what", s.what}});
    }
    return {{"metric_catalog_version", metric_catalog_version}, {"metrics", metrics}};
}

}  // namespace pinbench
