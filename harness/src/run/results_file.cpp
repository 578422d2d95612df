#include "run/results_file.hpp"

#include "pinbench/platform/atomic_file.hpp"
#include "pinbench/probes/platform_probes.hpp"
#include "pinbench/results/run_metrics.hpp"
#include "pinbench/vocabulary/errors.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"
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

HeldFile lock_results_file(const std::string& path) {
    const std::string lock = path + ".lock";
    const std::string mine =
        "pinbench run, pid " + std::to_string(current_process_id()) + ", since " + utc_now() + "\n";
    std::string holder;
    if (auto held = HeldFile::take(lock, mine, holder)) return std::move(*held);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\r')) holder.pop_back();
    throw InputError("pinbench run: '" + path + "' is being written by another " +
                     (holder.empty() ? std::string("pinbench run") : terminal_text(holder)) + " (it holds '" +
                     lock + "'); wait for it to end, or write to another -o. Nothing was measured");
}

void save_results(ResultsDocument& doc, const std::string& path) {
    finalize_metrics(doc);
    write_file_atomically(path, to_json(doc).dump(1) + "\n");
}

}  // namespace pinbench
