#include "run/busy_gpu.hpp"

#include <algorithm>
#include <iterator>

namespace pinbench {

void BusyGpuCheck::take(const nlohmann::json& evidence) {
    std::set<std::uint32_t> seen;
    for (const auto& e : evidence) {
        ++moves_;
        const std::uint32_t pid = e.value("pid", std::uint32_t{0});
        if (pid == 0) continue;
        seen.insert(pid);
        if (const std::string name = e.value("name", std::string()); !name.empty()) names_[pid] = name;
    }
    if (seen.empty()) return;  // device usage moved, nobody named (no process list): any neighbour
    if (!pids_) {
        pids_ = seen;
        return;
    }
    std::set<std::uint32_t> common;
    std::set_intersection(pids_->begin(), pids_->end(), seen.begin(), seen.end(),
                          std::inserter(common, common.end()));
    pids_ = common;
    if (common.empty()) armed_ = false;  // different neighbours each time: not one persistent one
}

void BusyGpuCheck::null_window(const nlohmann::json& evidence, std::int64_t began_ns) {
    armed_ = evidence.is_array() && !evidence.empty();
    since_ns_ = began_ns;
    if (armed_) take(evidence);
}

std::optional<std::string> BusyGpuCheck::attempt(const nlohmann::json& disturbance, std::int64_t ended_ns) {
    if (!armed_) return std::nullopt;
    const nlohmann::json* evidence =
        disturbance.is_object() && disturbance.contains("evidence") ? &disturbance["evidence"] : nullptr;
    const bool named = pids_.has_value();  // a neighbour the process lists named (header)
    if (evidence == nullptr || !evidence->is_array() || evidence->empty()) {
        if (named) {
            armed_ = false;  // the named neighbour kept still for a whole attempt: the GPU is usable
        } else {
            ++clean_;  // unnamed: it may just not have moved during this attempt
        }
        return std::nullopt;
    }
    ++attempts_;
    take(*evidence);
    if (!armed_) return std::nullopt;
    const std::int64_t elapsed_ns = ended_ns - since_ns_;
    const bool long_enough =
        elapsed_ns >= std::chrono::duration_cast<std::chrono::nanoseconds>(limits_.within).count();
    if (named) {
        if (attempts_ < limits_.attempts && !long_enough) return std::nullopt;
    } else if (attempts_ < limits_.attempts || (attempts_ < clean_ && !long_enough)) {
        return std::nullopt;
    }
    armed_ = false;
    const long long seconds = (elapsed_ns + 500'000'000) / 1'000'000'000;
    std::string who;
    if (pids_ && !pids_->empty()) {
        for (const std::uint32_t pid : *pids_) {
            const auto name = names_.find(pid);
            who += (who.empty() ? "" : ", ") + std::string("pid ") + std::to_string(pid) +
                   (name != names_.end() ? " (" + name->second + ")" : "");
        }
        who +=
            " moved device memory " + std::to_string(moves_) + " times in " + std::to_string(seconds) + " s";
    } else {
        who = "device usage moved " + std::to_string(moves_) + " times in " + std::to_string(seconds) +
              " s (no process named)";
    }
    const std::string attempts =
        clean_ == 0 ? "each of the " + std::to_string(attempts_) + " attempts since were disturbed"
                    : std::to_string(attempts_) + " of the " + std::to_string(attempts_ + clean_) +
                          " attempts since were disturbed";
    return "the GPU is busy: " + who + ": the null window before the first run and " + attempts;
}

}  // namespace pinbench
