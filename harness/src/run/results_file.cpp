#include "run/results_file.hpp"

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/results/run_metrics.hpp"
#include "run/protocol.hpp"
#include "run/timestamp.hpp"

namespace pinbench {
namespace {

nlohmann::json tool_record() {
    return {
        {"name", "pinbench"}, {"version", PINBENCH_VERSION},
#if defined(_MSC_VER)
            {"compiler", "MSVC " + std::to_string(_MSC_VER)},
#elif defined(__VERSION__)
            {"compiler", __VERSION__},
#endif
    };
}

void finalize_metrics(ResultsDocument& doc) {
    const Granules granules = measure_granules(doc);
    nlohmann::json g = nlohmann::json::object();
    for (const auto& [k, v] : granules) g[k] = v;
    doc.controls["granules"] = g;
    for (auto& run : doc.runs) {
        if (!run.repeats.empty()) run.metrics = compute_run_metrics(run, granules);
    }
}

}  // namespace

ResultsDocument start_results(const nlohmann::json& scenario, const RunOptions& options) {
    ResultsDocument doc;
    doc.backend = options.replay_source.empty() ? "cuda" : "replay";
    doc.tool = tool_record();
    doc.command = options.command;
    doc.started_at = utc_now();
    doc.measurement_id = make_nonce();
    doc.scenario = scenario;
    return doc;
}

void save_results(ResultsDocument& doc, const RunOptions& options, Save when) {
    finalize_metrics(doc);
    if (options.results_in_place && when == Save::progress) return;
    write_file_atomically(options.results_path, to_json(doc).dump(1) + "\n");
}

}  // namespace pinbench
