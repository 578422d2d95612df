#include "budget/budget.hpp"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <string>
#include <utility>

#include "budget/budget_child.hpp"
#include "budget/budget_limits.hpp"
#include "budget/budget_rule.hpp"
#include "pinbench/platform/interrupt.hpp"
#include "pinbench/probes/platform_probes.hpp"
#include "pinbench/results/environment_record.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"
#include "pinbench/vocabulary/units.hpp"
#include "platform/host_memory.hpp"
#include "platform/memory_limits.hpp"
#include "run/child_launcher.hpp"
#include "run/device_watch.hpp"
#include "run/disturbance.hpp"
#include "run/measuring_devices.hpp"
#include "run/protocol.hpp"
#include "run/settle.hpp"
#include "run/timestamp.hpp"
#include "run/watched_attempt.hpp"

namespace pinbench {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// The held phase first: where it reaches the cap in chunks, the single phase tries the cap at
// once (cap_first_applies, budget_rule.hpp). Under --held-only only the first runs.
constexpr const char* kPhases[] = {"held", "single"};
constexpr int kHeldOnlyPhases = 1;

// A child's phase record, or why there is none: {"status": ok|waived|failed, "error", "data"}.
json phase_record(const ChildLauncher::Result& r) {
    if (!r.response) return {{"status", "failed"}, {"error", r.problem}};
    const json& record = (*r.response)["record"];
    const std::string status = record.value("status", "failed");
    if (status != "ok") return {{"status", status}, {"error", record.value("error", "")}};
    return {{"status", "ok"}, {"data", (*r.response)["data"]}};
}

// The OOM counters of every group this process is in (memory.events, memory.oom_control), read
// before and after each phase: the budget never means to wake the OOM killer, and when it woke
// anyway the document says whose memory ran out and what it killed.
struct GroupCounts {
    std::string where, events;
    OomCounts counts;
};

std::vector<GroupCounts> oom_counts(const std::vector<MemoryLimit>& limits) {
    std::vector<GroupCounts> out;
    for (const MemoryLimit& l : limits) {
        if (l.events.empty()) continue;
        if (std::any_of(out.begin(), out.end(), [&](const GroupCounts& g) { return g.events == l.events; })) {
            continue;
        }
        if (const auto c = read_oom_counts(l.events)) out.push_back({l.where, l.events, *c});
    }
    return out;
}

// The groups whose counters moved between `before` and now: [{where, oom, oom_kill}] (the moves).
json oom_moves(const std::vector<GroupCounts>& before) {
    json moves = json::array();
    for (const GroupCounts& g : before) {
        const auto now = read_oom_counts(g.events);
        if (!now || (now->oom == g.counts.oom && now->oom_kill == g.counts.oom_kill)) continue;
        moves.push_back(
            {{"where", terminal_text(g.where)},
             {"oom", static_cast<std::int64_t>(now->oom) - static_cast<std::int64_t>(g.counts.oom)},
             {"oom_kill",
              static_cast<std::int64_t>(now->oom_kill) - static_cast<std::int64_t>(g.counts.oom_kill)}});
    }
    return moves;
}

// One phase's child, its record, and what the OOM killer did meanwhile: "oom_events" (the moves)
// when a group's counters moved; a child killed by SIGKILL while a group's oom_kill rose was the
// OOM killer's, said so in its error ("killed by the OOM killer of cgroup X at N"), never taken
// for a driver's limit.
json run_phase(ChildLauncher& launcher, json request, std::chrono::milliseconds timeout,
               const std::vector<MemoryLimit>& limits, ChildLauncher::Result* result = nullptr) {
    const std::vector<GroupCounts> before = oom_counts(limits);
    ChildLauncher::Result r = launcher.run(std::move(request), timeout);
    json phase = phase_record(r);
    const json moves = oom_moves(before);
    if (!moves.empty()) phase["oom_events"] = moves;
    constexpr int kSigkill = 9;
    if (!r.response && r.outcome.kind == ProcessOutcome::Kind::signalled && r.outcome.signal == kSigkill) {
        for (const json& m : moves) {
            if (m["oom_kill"].get<std::int64_t>() <= 0) continue;
            std::string at;
            if (const auto a = last_asking(r.outcome.output)) {
                at = " at " + format_bytes(a->holding + a->asking) + " (holding " + format_bytes(a->holding) +
                     ", asking for " + format_bytes(a->asking) + " more)";
            }
            phase["error"] = "killed by the OOM killer of cgroup " + m["where"].get<std::string>() + at +
                             ": the group's memory ran out, not the driver's pins";
            phase["oom_killed"] = true;
            break;
        }
    }
    if (result != nullptr) *result = std::move(r);
    return phase;
}

// A move of another process's device memory larger than this is a disturbance: half of one
// 2 MiB step of the driver's cost, as the repeats' watch judges (run/watched_attempt.cpp).
constexpr std::int64_t kWatchTolerance = std::int64_t{1} << 20;

// The held phase under the parent's NVML watch (the parent holds no CUDA context, so the watch
// moves nothing it sees): the phase record, with "disturbed" (the evidence, a line each) when
// another process appeared, left or moved device memory while the child held its pins, and
// "watch" saying why nothing was watched when NVML or the device list is missing.
json run_watched_phase(ChildLauncher& launcher, const Nvml* nvml, const json& environment, json request,
                       std::chrono::milliseconds timeout, const std::vector<MemoryLimit>& limits) {
    std::unique_ptr<DeviceWatch> watch;
    if (nvml != nullptr) {
        const WatchPlan plan = watch_plan_for(environment, 1, kWatchTolerance);
        if (!plan.devices.empty()) watch = std::make_unique<DeviceWatch>(*nvml, plan.devices, 10ms);
    }
    AttemptWindow window;
    window.begin_ns = steady_ns(SteadyClock::now());
    ChildLauncher::Result r;
    json phase = run_phase(launcher, std::move(request), timeout, limits, &r);
    if (!watch) {
        phase["watch"] =
            nvml == nullptr ? "not watched: NVML could not be opened" : "not watched: no NVML device";
        return phase;
    }
    const WatchTrace trace = watch->finish();
    window.end_ns = steady_ns(SteadyClock::now());
    if (r.response) {
        const auto pid = (*r.response)["record"].value("pid", std::int64_t{0});
        if (pid > 0) window.own_pids.insert(static_cast<std::uint32_t>(pid));
    } else if (const auto a = last_asking(r.outcome.output)) {
        window.own_pids.insert(static_cast<std::uint32_t>(a->pid));  // a child that died (an OOM kill)
    }
    const Disturbance d = judge_attempt(trace, window, kWatchTolerance);
    if (d.any()) {
        json lines = json::array();
        for (const Evidence& e : d.evidence) lines.push_back(e.text);
        phase["disturbed"] = lines;
    }
    if (!trace.no_process_list.empty()) phase["watch"] = "device usage only: " + trace.no_process_list;
    return phase;
}

json reading_or_null(const json& readings, const char* key) {
    const auto it = readings.find(key);
    return it != readings.end() && it->is_number() ? *it : json(nullptr);
}

// The verdict of the failure checks of both phases: "poisons" when one poisoned, "clean" when
// one was clean, "not_seen" when no call failed.
std::string failure_verdict(const json& single, const json& held) {
    std::string verdict = "not_seen";
    for (const json* phase : {&single, &held}) {
        if (!phase->contains("failure_check")) continue;
        std::string v = (*phase)["failure_check"].value("verdict", "");
        if (v == "poisons") return v;
        verdict = std::move(v);
    }
    return verdict;
}

bool saw_silent_fallback(const json& single, const json& held) {
    return silent_fallback_in(single) || silent_fallback_in(held);
}

// A single phase's child that pinned the cap at once first and failed: it did not search.
bool cap_at_once_failed(const json& single_phase) {
    if (!single_phase.contains("data")) return false;
    const json& data = single_phase["data"];
    return data.contains("first_try") && !data["first_try"].value("ok", false);
}

// Seconds per GiB over the chunks that pinned: the call's time (`field` pin_ms), and the first
// touch of registered memory (touch_ms), which the caller pays before the driver sees it.
json seconds_per_gib(const json& held, const char* field) {
    double ms = 0, bytes = 0;
    for (const json& c : held.value("chunks", json::array())) {
        if (!c.value("ok", false)) continue;
        ms += c.value(field, 0.0);
        bytes += c.value("bytes", 0.0);
    }
    if (bytes <= 0 || (ms <= 0 && std::string(field) != "pin_ms")) return nullptr;
    return ms / 1000.0 / (bytes / static_cast<double>(1ull << 30));
}

// One family's answer from its phases, {"held", "single"} or, under --held-only, {"held"}
// (docs/budget.md, "The document"). Without a single phase the largest single pin is not
// measured: bytes null, never 0; everything else is read from the held phase as always.
json family_answer(const std::string& family, const json& phases, std::uint64_t chunk) {
    json f = {{"family", family}};
    f["phases"] = phases;
    const bool measured_single = phases.contains("single");
    const json& held_phase = phases.at("held");
    const json& single_phase = measured_single ? phases.at("single") : held_phase;
    for (const json* p : {&single_phase, &held_phase}) {
        if ((*p)["status"] != "ok") {
            f["status"] = (*p)["status"];
            f["error"] = (*p).value("error", "");
            return f;
        }
    }
    f["status"] = "ok";
    // Without a single phase its data is empty: no failure check, no silent fallback of its own.
    const json single = measured_single ? single_phase["data"] : json::object();
    const json& held = held_phase["data"];
    const std::uint64_t total = held.value("held", std::uint64_t{0});
    if (measured_single) {
        const std::uint64_t largest = single.value("largest", std::uint64_t{0});
        f["largest_single"] = {{"bytes", largest},
                               {"stopped_by", single.value("stopped_by", "")},
                               {"words", stop_words(single.value("stopped_by", ""), largest,
                                                    single.value("smallest_failed", std::uint64_t{0}),
                                                    single.value("reason", ""))}};
    } else {
        f["largest_single"] = {{"bytes", nullptr},
                               {"stopped_by", budget_stop::not_measured},
                               {"words", stop_words(budget_stop::not_measured, 0, 0, "")}};
    }
    const std::uint64_t held_failed_at = held.value("stopped_by", "") == budget_stop::driver ||
                                                 held.value("stopped_by", "") == budget_stop::silent_fallback
                                             ? total + chunk
                                             : 0;
    f["held_at_once"] = {
        {"bytes", total},
        {"chunk", chunk},
        {"stopped_by", held.value("stopped_by", "")},
        {"words", stop_words(held.value("stopped_by", ""), total, held_failed_at, held.value("reason", ""))}};
    // The limit of this process that ended the held search (the host's memory, a group, the
    // address space), as the child read it at the stop.
    if (held.contains("limit")) f["bounded_by"] = held["limit"];
    f["failure"] = failure_verdict(single, held);
    f["silent_fallback"] = saw_silent_fallback(single, held);
    f["pin_s_per_gib"] = seconds_per_gib(held, "pin_ms");
    f["touch_s_per_gib"] = seconds_per_gib(held, "touch_ms");
    const json before = held.value("probes_before", json::object());
    const json at_total = held.value("probes_at_total", json::object());
    const auto room = shared_room(before);
    f["shared"] = {{"nonlocal_budget", reading_or_null(before, "dxgi.nonlocal.budget")},
                   {"nonlocal_usage_before", reading_or_null(before, "dxgi.nonlocal.usage")},
                   {"nonlocal_usage_at_total", reading_or_null(at_total, "dxgi.nonlocal.usage")},
                   {"room", room ? json(*room) : json(nullptr)}};
    const std::uint64_t safe = safe_budget(total, chunk, room);
    f["safe_budget"] = safe;
    f["limit_found"] = stopped_by_driver(held.value("stopped_by", ""));
    const json vram = vram_answer(held_phase, safe);
    f["vram_cost_at_budget"] = vram["cost"];
    if (vram.contains("disturbed")) f["vram_disturbed"] = vram["disturbed"];
    if (held.contains("device_free_before") && held.contains("device_free_after_release")) {
        f["device_free_residual"] = held["device_free_before"].get<std::int64_t>() -
                                    held["device_free_after_release"].get<std::int64_t>();
    }
    return f;
}

// The document's "limits": each limit read at the start, what could not be read, and the one
// that bounds a request now (the smallest room less its margin), in words.
json limits_record(const MemoryLimits& limits, std::uint64_t keep_free, bool wsl) {
    json read = json::array();
    for (const MemoryLimit& l : limits.limits) read.push_back(limit_json(l, keep_free, wsl));
    json notes = json::array();
    for (const std::string& note : limits.notes) {
        notes.push_back(terminal_text(note));  // any bytes a file held
    }
    json out = {{"read", read}, {"notes", notes}};
    if (limits.in_job) out["in_job"] = true;
    const Allowance a = allowance(limits.limits, keep_free);
    if (a.by) {
        const MemoryLimit& by = limits.limits[*a.by];
        out["bounding"] = {{"index", *a.by}, {"allowed", *a.bytes}, {"words", limit_words(by, wsl)}};
    } else {
        out["bounding"] = nullptr;
    }
    return out;
}

// This process's DXGI NON_LOCAL budget for the CUDA device's adapter (found by its LUID in the
// environment record), where Windows gives one.
std::optional<std::uint64_t> nonlocal_budget(const json& environment) {
    const std::string hex = device_luid_of(environment, 0);
    if (hex.size() != 16) return std::nullopt;
    Luid luid{};
    for (std::size_t i = 0; i < luid.size(); ++i) {
        const auto byte = std::strtoul(hex.substr(2 * i, 2).c_str(), nullptr, 16);
        luid[i] = static_cast<std::uint8_t>(byte);
    }
    ProbeSet probes;
    for (auto& p : make_platform_probes(luid, current_process_id())) probes.add(std::move(p));
    const Readings readings = probes.read_all();
    const auto it = readings.find("dxgi.nonlocal.budget");
    if (it == readings.end() || !it->second.available() || *it->second.bytes <= 0) return std::nullopt;
    return static_cast<std::uint64_t>(*it->second.bytes);
}

}  // namespace

json measure_budget(const BudgetOptions& options, std::ostream& progress) {
    const auto start = SteadyClock::now();
    json doc = {{"schema", kBudgetSchema}, {"version", kBudgetVersion}};
    doc["pinbench_version"] = PINBENCH_VERSION;
    doc["started_at"] = utc_now();
    // The limits that apply to this process (and so to its children): every request is sized by
    // the smallest room among them, less the margin (budget_limits.hpp).
    const MemorySources sources = memory_sources();
    const MemoryLimits limits = read_memory_limits(sources);
    const auto room = smallest_shared_room(limits.limits);
    const std::uint64_t keep_free = options.keep_free ? *options.keep_free
                                    : room            ? default_keep_free(*room)
                                                      : kKeepFreeFloor;
    std::optional<std::uint64_t> available, ram;
    for (const MemoryLimit& l : limits.limits) {
        if (l.kind == limit_kind::host) available = l.room(), ram = l.limit;
    }
    if (!available) available = host_ram_available();
    if (!ram) ram = host_ram_total();
    doc["rule"] = {{"keep_share", kBudgetKeepShare}, {"small_pin", kBudgetSmallPin}};
    doc["host"] = {{"available_at_start", available ? json(*available) : json(nullptr)},
                   {"ram_total", ram ? json(*ram) : json(nullptr)}};

    ChildLauncher launcher(options.executable);
    json env_request = {{"mode", child_mode::environment}, {"gpus", 1}};
    progress << "pinbench budget: the environment" << std::endl;
    const json env = run_phase(launcher, env_request, 120s, limits.limits);
    doc["environment"] = env["status"] == "ok" ? env["data"] : json{{"unavailable", env.value("error", "")}};
    const json& environment = doc["environment"];
    const bool windows = platform_of(environment) == "windows";
    if (windows && ram) doc["host"]["windows_graphics_limit"] = windows_graphics_limit(*ram);
    const auto wsl = wsl_version_of(environment);
    if (wsl) doc["host"]["wsl"] = *wsl;
    doc["limits"] = limits_record(limits, keep_free, wsl.has_value());

    // The cap: --cap, else on Windows above the OS's own limit for graphics (so the default run
    // finds it), else the default.
    std::uint64_t cap = kBudgetDefaultCap;
    std::string cap_basis = "the default, " + format_bytes(kBudgetDefaultCap);
    if (options.cap) {
        cap = *options.cap;
        cap_basis = "--cap";
    } else if (windows && ram) {
        const auto nonlocal = nonlocal_budget(environment);
        cap = windows_default_cap(*ram, nonlocal, options.chunk);
        cap_basis = "Windows' limit for graphics, the larger of RAM/2 (" +
                    format_bytes(windows_graphics_limit(*ram)) + ") and the DXGI non-local budget (" +
                    (nonlocal ? format_bytes(*nonlocal) : "not read") + "), plus " +
                    std::to_string(static_cast<int>(kWindowsCapMargin * 100)) + "%";
    }
    doc["options"] = {{"cap", cap},
                      {"cap_basis", cap_basis},
                      {"chunk", options.chunk},
                      {"keep_free", keep_free},
                      {"keep_free_default", !options.keep_free.has_value()},
                      {"time_limit_s", options.time_limit_s},
                      {"held_only", options.held_only}};
    const std::vector<GroupCounts> counts_at_start = oom_counts(limits.limits);

    // The parent's NVML, for the watch over each held phase (run_watched_phase).
    std::string nvml_why;
    const std::unique_ptr<Nvml> nvml = Nvml::open(&nvml_why);

    const auto limit_ms = static_cast<std::int64_t>(options.time_limit_s * 1000);
    // A pin call is not interrupted at the deadline: the parent waits this long beyond it.
    const auto grace = 30s + std::chrono::seconds(cap >> 30);
    const int phases_per_family = options.held_only ? kHeldOnlyPhases : static_cast<int>(std::size(kPhases));
    int phases_left = static_cast<int>(std::size(kBudgetFamilies)) * phases_per_family;
    // Each phase gets the time left over the phases left, this one included.
    const auto share_of = [&](int phases) {
        const std::int64_t left = std::max<std::int64_t>(
            0, limit_ms - static_cast<std::int64_t>(ms_between(start, SteadyClock::now())));
        return left / phases;
    };
    doc["families"] = json::array();
    for (const char* family : kBudgetFamilies) {
        json phases = json::object();
        for (int p = 0; p < phases_per_family; ++p) {
            const char* phase = kPhases[p];
            if (stop_signal() != 0) break;
            const bool single = std::string(phase) == "single";
            const bool cap_first = single && cap_first_applies(phases["held"]);
            std::int64_t share = share_of(phases_left--);
            progress << "pinbench budget: " << family << ", "
                     << (single ? "largest single pin" : "held at once in chunks") << " ("
                     << (cap_first ? "the cap at once first, " : "up to ") << format_bytes(cap) << ", "
                     << static_cast<double>(share) / 1000.0 << " s)" << std::endl;
            json request = {{"mode", kBudgetChildMode},
                            {"family", family},
                            {"phase", phase},
                            {"wsl", wsl.has_value()},
                            // read again now: what the job uses before this phase's child starts
                            {"outer_jobs", outer_jobs_json(read_memory_limits(sources).limits)},
                            {"cap", cap},
                            {"chunk", options.chunk},
                            {"keep_free", keep_free},
                            {"small_bytes", kBudgetSmallPin},
                            {"time_limit_ms", share},
                            {"cap_first", cap_first}};
            const auto timeout = std::chrono::milliseconds(share) + grace;
            if (!single) {
                phases[phase] =
                    run_watched_phase(launcher, nvml.get(), environment, request, timeout, limits.limits);
                continue;
            }
            phases[phase] = run_phase(launcher, request, timeout, limits.limits);
            if (!cap_at_once_failed(phases[phase]) || stop_signal() != 0) continue;
            // The search as it always was, in a fresh process: the failure may have poisoned the
            // first one, and a clean failure must not leave the search a process unlike the one
            // it always had. It shares what is left with the phases after it as one more phase.
            share = share_of(phases_left + 1);
            progress << "pinbench budget: " << family
                     << ", the cap at once did not pin; largest single pin (up to " << format_bytes(cap)
                     << ", " << static_cast<double>(share) / 1000.0 << " s)" << std::endl;
            request["cap_first"] = false;
            request["time_limit_ms"] = share;
            const json first_try = phases[phase]["data"]["first_try"];
            phases[phase] =
                run_phase(launcher, request, std::chrono::milliseconds(share) + grace, limits.limits);
            // The failed try stays on record beside the search's pins (beside the phase's error
            // when the search has no record).
            (phases[phase].contains("data") ? phases[phase]["data"] : phases[phase])["first_try"] = first_try;
        }
        if (stop_signal() != 0) break;
        doc["families"].push_back(family_answer(family, phases, options.chunk));
    }
    if (const int signal = stop_signal(); signal != 0) {
        doc["complete"] = false;
        doc["interrupted"] = {{"signal", stop_signal_name(signal)}, {"code", signal}};
    } else {
        doc["complete"] = true;
    }
    json best = nullptr;
    for (const json& f : doc["families"]) {
        if (f["status"] != "ok") continue;
        if (best.is_null() || f["safe_budget"].get<std::uint64_t>() < best["bytes"].get<std::uint64_t>()) {
            best = {{"bytes", f["safe_budget"]}, {"family", f["family"]}, {"limit_found", f["limit_found"]}};
        }
    }
    doc["safe_budget"] = best;
    // Over the whole run: what the OOM killer did in the groups this process is in. The budget
    // never means to wake it; where it did, the exit code is 3.
    doc["limits"]["oom_events"] = oom_moves(counts_at_start);
    doc["elapsed_s"] = ms_between(start, SteadyClock::now()) / 1000.0;
    return doc;
}

int budget_exit_code(const json& document) {
    if (document.contains("interrupted")) return 128 + document["interrupted"].value("code", 0);
    bool answered = false;
    for (const json& f : document.value("families", json::array())) {
        if (f.value("status", "") == "failed") return 3;
        if (f.contains("vram_disturbed")) return 3;  // a neighbour moved the VRAM figure: no figure
        answered = answered || f.value("status", "") == "ok";
    }
    // The OOM killer of a group of this process killed something while the budget ran.
    if (document.contains("limits")) {
        for (const json& m : document["limits"].value("oom_events", json::array())) {
            if (m.value("oom_kill", 0) > 0) return 3;
        }
    }
    return answered ? 0 : 3;
}

}  // namespace pinbench
