#include "budget/budget_console.hpp"

#include <cstdint>
#include <cstdio>
#include <string>

#include "budget/budget_child.hpp"
#include "budget/budget_limits.hpp"
#include "pinbench/results/environment_record.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"
#include "pinbench/vocabulary/units.hpp"

namespace pinbench {
namespace {

using nlohmann::json;

std::string bytes_or(const json& v, const char* otherwise = "not measured") {
    return v.is_number() ? format_bytes(v.get<std::uint64_t>()) : otherwise;
}

std::string seconds(const json& v) {
    if (!v.is_number()) return "not measured";
    char text[32];
    std::snprintf(text, sizeof text, "%.3g s/GiB", v.get<double>());
    return text;
}

std::string failure_words(const std::string& verdict) {
    if (verdict == "poisons") return "POISONS: after a failed pin every later pin in the process failed";
    if (verdict == "clean") return "clean: a small pin after the failure worked";
    return "no call failed";
}

// The limits of this process (version 2 documents): the one that bounds every request, the
// others, what could not be read, the cap's basis, and what the OOM killer did meanwhile.
void print_limits(const json& doc, std::ostream& out) {
    if (!doc.contains("limits")) return;
    const json& limits = doc["limits"];
    const json& bounding = limits["bounding"];
    if (bounding.is_object()) {
        const json& l = limits["read"][bounding["index"].get<std::size_t>()];
        out << "  bounded by " << terminal_text(l["words"].get<std::string>()) << ": at most "
            << bytes_or(bounding["allowed"]) << " may be asked for at the start (its room less "
            << bytes_or(l["margin"])
            << (l["scope"] == "shared" ? " kept free" : " for the driver's own mappings") << ")\n";
    }
    for (std::size_t i = 0; i < limits["read"].size(); ++i) {
        if (bounding.is_object() && bounding["index"].get<std::size_t>() == i) continue;
        const json& l = limits["read"][i];
        if (l["kind"] == "host") continue;  // the host line above
        out << "  also: " << terminal_text(l["words"].get<std::string>()) << "\n";
    }
    for (const json& note : limits["notes"]) {
        out << "  limits: " << terminal_text(note.get<std::string>()) << "\n";
    }
    if (const json& o = doc["options"]; o.contains("cap_basis") && o["cap_basis"] != "--cap") {
        out << "  cap " << bytes_or(o["cap"]) << ": " << terminal_text(o["cap_basis"].get<std::string>())
            << "\n";
    }
}

void print_oom_events(const json& doc, std::ostream& out) {
    if (!doc.contains("limits")) return;
    for (const json& m : doc["limits"].value("oom_events", json::array())) {
        out << "OOM KILLER: in cgroup " << terminal_text(m["where"].get<std::string>()) << " it counted "
            << m["oom"].get<std::int64_t>() << " oom and " << m["oom_kill"].get<std::int64_t>()
            << " oom_kill events while the budget ran (memory.events)\n";
    }
}

}  // namespace

void print_budget(const json& doc, std::ostream& out) {
    const json& env = doc.value("environment", json::object());
    const std::string device = device_name_of(env, 0), release = driver_release_of(env);
    // Where CUDA could not start under a limit of this process, the GPU is not unknown: CUDA
    // could not see it (each family's line below says which limit).
    bool cuda_blocked = false;
    for (const json& f : doc["families"]) {
        cuda_blocked = cuda_blocked || f.value("error", "").rfind(kCudaBlockedWords, 0) == 0;
    }
    out << "pin budget: "
        << (!device.empty() ? device
            : cuda_blocked  ? "GPU not seen (CUDA could not start, below)"
                            : "unknown GPU")
        << ", driver " << (release.empty() ? "unknown" : release) << ", " << driver_model_of(env, 0);
    if (doc["host"].contains("wsl")) out << " under WSL" << doc["host"]["wsl"].get<int>();
    out << "\n";
    const json& host = doc["host"];
    out << "  host: " << bytes_or(host["available_at_start"], "unknown") << " available at the start of "
        << bytes_or(host["ram_total"], "unknown") << "; kept free " << bytes_or(doc["options"]["keep_free"]);
    if (host.contains("windows_graphics_limit")) {
        out << "; Windows' limit for graphics MAX(RAM/2, 64MB) = "
            << bytes_or(host["windows_graphics_limit"]);
    }
    out << "\n";
    print_limits(doc, out);
    for (const json& f : doc["families"]) {
        out << f["family"].get<std::string>() << ":";
        if (f["status"] != "ok") {
            out << " " << f["status"].get<std::string>() << ": " << f.value("error", "") << "\n";
            continue;
        }
        const json& held = f["held_at_once"];
        const std::string stop = held.value("stopped_by", "");
        const bool by_limit = stop == budget_stop::memory_limit || stop == budget_stop::address_space;
        out << " safe budget " << bytes_or(f["safe_budget"])
            << (f["limit_found"].get<bool>() ? ""
                : by_limit ? " (a limit of this process bounds it, below: the driver's limit was not reached)"
                           : " (at least: the search did not reach the driver's limit)")
            << ", VRAM it costs " << bytes_or(f["vram_cost_at_budget"]) << "\n";
        if (f.contains("vram_disturbed")) {
            out << "  VRAM: not measured cleanly, another process moved device memory meanwhile: "
                << terminal_text(f["vram_disturbed"].front().get<std::string>()) << "\n";
        }
        out << "  held at once " << bytes_or(held["bytes"]) << " in " << bytes_or(held["chunk"])
            << " chunks: " << terminal_text(held["words"].get<std::string>()) << "\n";
        const json& single = f["largest_single"];
        if (single["bytes"].is_number()) {
            out << "  largest single pin " << bytes_or(single["bytes"]) << ": "
                << terminal_text(single["words"].get<std::string>()) << "\n";
        } else {  // not measured (--held-only): the words say so and how to measure it
            out << "  largest single pin: " << terminal_text(single["words"].get<std::string>()) << "\n";
        }
        out << "  a failure: " << failure_words(f["failure"].get<std::string>()) << "\n";
        if (f["silent_fallback"].get<bool>()) {
            out << "  SILENT FALLBACK: a call reported success and the driver does not see the memory "
                   "pinned\n";
        }
        out << "  pin speed " << seconds(f["pin_s_per_gib"]);
        if (f["touch_s_per_gib"].is_number()) {
            out << " (first touch before registering " << seconds(f["touch_s_per_gib"]) << ")";
        }
        out << "\n";
        const json& shared = f["shared"];
        if (shared["nonlocal_budget"].is_number()) {
            out << "  DXGI non-local budget " << bytes_or(shared["nonlocal_budget"]) << ", usage "
                << bytes_or(shared["nonlocal_usage_before"]) << " before, "
                << bytes_or(shared["nonlocal_usage_at_total"]) << " at the total held\n";
        }
        if (f.contains("device_free_residual") && f["device_free_residual"].get<std::int64_t>() != 0) {
            out << "  device memory not given back after release: "
                << format_bytes_signed(f["device_free_residual"].get<std::int64_t>()) << "\n";
        }
    }
    if (doc["safe_budget"].is_object()) {
        out << "safe budget: " << bytes_or(doc["safe_budget"]["bytes"]) << " ("
            << doc["safe_budget"]["family"].get<std::string>() << "; "
            << static_cast<int>(doc["rule"]["keep_share"].get<double>() * 100)
            << "% of what one process held at once, docs/budget.md)\n";
    } else {
        out << "safe budget: not measured\n";
    }
    print_oom_events(doc, out);
    if (doc.contains("interrupted")) {
        out << "interrupted (" << doc["interrupted"]["signal"].get<std::string>()
            << "): the budget is incomplete\n";
    }
}

}  // namespace pinbench
