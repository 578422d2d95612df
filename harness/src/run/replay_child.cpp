#include "run/replay_child.hpp"

#include <chrono>
#include <cstdlib>
#include <thread>

#include "pinbench/errors.hpp"
#include "pinbench/replay_script.hpp"

namespace pinbench {

RepeatRecord replay_repeat(const nlohmann::json& request) {
    const auto& replay = request.at("replay");
    const ResultsDocument source = load_results(replay.at("source").get<std::string>());
    const std::string script_path = replay.value("script", "");
    const ReplayScript script = script_path.empty() ? ReplayScript{} : load_replay_script(script_path);
    const std::string run_id = request.at("run_id").get<std::string>();
    const int repeat = request.at("repeat").get<int>();

    if (auto injection = injection_for(script, run_id, repeat)) {
        switch (injection->what) {
            case ReplayInjection::What::crash:
                std::abort();
            case ReplayInjection::What::hang:
                for (;;) std::this_thread::sleep_for(std::chrono::hours(1));
            case ReplayInjection::What::cuda_error:
                throw CudaError("cudaMemcpyAsync", 700, "cudaErrorIllegalAddress",
                                "an illegal memory access was encountered (injected by replay script)");
        }
    }
    for (const auto& run : source.runs) {
        if (run.run.id != run_id) continue;
        if (run.repeats.empty() && run.status == Status::waived) {
            // WAIVED where it was measured (too few GPUs, an unsupported API): replayed as such.
            RepeatRecord waived;
            waived.status = Status::waived;
            waived.error = run.reason;
            return waived;
        }
        for (const auto& r : run.repeats) {
            if (r.index != repeat) continue;
            RepeatRecord out = r;
            apply_transforms(script, run_id, out);
            return out;
        }
        RepeatRecord missing;
        missing.status = Status::failed;
        missing.error = "replay source has no repeat " + std::to_string(repeat) + " for run " + run_id;
        return missing;
    }
    throw InputError("replay source has no run " + run_id);
}

}  // namespace pinbench
