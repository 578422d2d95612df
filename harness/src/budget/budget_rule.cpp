#include "budget/budget_rule.hpp"

#include <algorithm>

#include "budget/budget_child.hpp"
#include "pinbench/vocabulary/units.hpp"

namespace pinbench {

std::uint64_t default_keep_free(std::uint64_t room) {
    const auto share = [room](double s) { return static_cast<std::uint64_t>(static_cast<double>(room) * s); };
    return std::max(std::min(kKeepFreeFloor, share(kKeepFreeFloorShare)), share(kKeepFreeShare));
}

std::uint64_t safe_budget(std::uint64_t held, std::uint64_t chunk, std::optional<std::uint64_t> room) {
    if (chunk == 0) return 0;
    std::uint64_t keep = static_cast<std::uint64_t>(static_cast<double>(held) * kBudgetKeepShare);
    if (room) keep = std::min(keep, *room);
    return keep / chunk * chunk;
}

nlohmann::json vram_answer(const nlohmann::json& held_phase, std::uint64_t budget) {
    if (const auto d = held_phase.find("disturbed"); d != held_phase.end() && d->is_array() && !d->empty()) {
        return {{"cost", nullptr}, {"disturbed", *d}};
    }
    const auto cost = vram_cost_at(held_phase.value("data", nlohmann::json::object()), budget);
    return {{"cost", cost ? nlohmann::json(*cost) : nlohmann::json(nullptr)}};
}

std::optional<std::int64_t> vram_cost_at(const nlohmann::json& held_phase, std::uint64_t budget) {
    if (budget == 0) return 0;
    const auto before = held_phase.find("device_free_before");
    const auto chunks = held_phase.find("chunks");
    if (before == held_phase.end() || !before->is_number() || chunks == held_phase.end()) return std::nullopt;
    std::uint64_t total = 0;
    for (const auto& c : *chunks) {
        if (!c.value("ok", false)) break;
        total += c.value("bytes", std::uint64_t{0});
        if (total >= budget) {
            if (!c.contains("device_free")) return std::nullopt;
            return before->get<std::int64_t>() - c["device_free"].get<std::int64_t>();
        }
    }
    return std::nullopt;
}

std::uint64_t windows_graphics_limit(std::uint64_t ram_total) {
    constexpr std::uint64_t floor = 64ull * 1000 * 1000;  // "64MB"
    return std::max(ram_total / 2, floor);
}

std::uint64_t windows_default_cap(std::uint64_t ram_total, std::optional<std::uint64_t> nonlocal_budget,
                                  std::uint64_t chunk) {
    constexpr std::uint64_t largest = std::uint64_t{64} << 40;  // --cap's own bound
    if (chunk == 0) return 0;
    const std::uint64_t os = std::max(windows_graphics_limit(ram_total), nonlocal_budget.value_or(0));
    const auto wanted = static_cast<double>(os) * (1.0 + kWindowsCapMargin);
    const std::uint64_t cap =
        wanted >= static_cast<double>(largest) ? largest : static_cast<std::uint64_t>(wanted);
    return std::max(chunk, std::min(largest / chunk * chunk, (cap + chunk - 1) / chunk * chunk));
}

std::optional<std::uint64_t> shared_room(const nlohmann::json& readings) {
    const auto budget = readings.find("dxgi.nonlocal.budget");
    const auto usage = readings.find("dxgi.nonlocal.usage");
    if (budget == readings.end() || usage == readings.end() || !budget->is_number() || !usage->is_number()) {
        return std::nullopt;
    }
    const std::int64_t b = budget->get<std::int64_t>(), u = usage->get<std::int64_t>();
    return b > u ? static_cast<std::uint64_t>(b - u) : 0;
}

bool stopped_by_driver(const std::string& stopped_by) {
    return stopped_by == budget_stop::driver || stopped_by == budget_stop::silent_fallback;
}

bool silent_fallback_in(const nlohmann::json& phase_data) {
    if (phase_data.value("stopped_by", "") == budget_stop::silent_fallback) return true;
    if (const auto first = phase_data.find("first_try");
        first != phase_data.end() && first->contains("not_pinned")) {
        return true;
    }
    for (const char* list : {"tried", "chunks"}) {
        const auto pins = phase_data.find(list);
        if (pins == phase_data.end()) continue;
        for (const nlohmann::json& p : *pins) {
            if (p.contains("not_pinned")) return true;
        }
    }
    return false;
}

bool cap_first_applies(const nlohmann::json& held_phase) {
    if (held_phase.value("status", "") != "ok") return false;
    if (const auto d = held_phase.find("disturbed"); d != held_phase.end() && d->is_array() && !d->empty()) {
        return false;  // as vram_answer reads it: an empty list is no evidence
    }
    const nlohmann::json data = held_phase.value("data", nlohmann::json::object());
    return data.value("stopped_by", "") == budget_stop::cap && !data.contains("failure_check") &&
           !silent_fallback_in(data);
}

std::string stop_words(const std::string& stopped_by, std::uint64_t at, std::uint64_t failed_at,
                       const std::string& reason) {
    const std::string failed = failed_at > 0 ? " at " + format_bytes(failed_at) : "";
    if (stopped_by == budget_stop::driver) return "a pin failed" + failed + ": " + reason;
    if (stopped_by == budget_stop::silent_fallback) {
        return "a pin" + failed + " reported success but is not pinned (" + reason + ")";
    }
    if (stopped_by == budget_stop::cap) return "capped at " + format_bytes(at) + ", the real limit is higher";
    if (stopped_by == budget_stop::time_limit) {
        return "the time limit stopped it at " + format_bytes(at) + ", the real limit is higher";
    }
    if (stopped_by == budget_stop::host_available) {
        return "available host memory minus --keep-free stopped it at " + format_bytes(at) +
               ", the real limit is higher" + (reason.empty() ? "" : " (" + reason + ")");
    }
    // The reason is the limit's words (budget_limits.hpp): "the container's limit, 6 GiB, ...".
    if (stopped_by == budget_stop::memory_limit || stopped_by == budget_stop::address_space) {
        return reason + ": stopped at " + format_bytes(at);
    }
    if (stopped_by == budget_stop::oom_event) return reason + ", at " + format_bytes(at);
    if (stopped_by == budget_stop::not_measured) {
        return "not measured (--held-only; pinbench budget without it measures it)";
    }
    return stopped_by.empty() ? "not measured" : stopped_by;
}

}  // namespace pinbench
