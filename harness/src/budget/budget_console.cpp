#include "budget/budget_console.hpp"

#include <cstdint>
#include <cstdio>
#include <string>

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

}  // namespace

void print_budget(const json& doc, std::ostream& out) {
    const json& env = doc.value("environment", json::object());
    const std::string device = device_name_of(env, 0), release = driver_release_of(env);
    out << "pin budget: " << (device.empty() ? "unknown GPU" : device) << ", driver "
        << (release.empty() ? "unknown" : release) << ", " << driver_model_of(env, 0);
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
    for (const json& f : doc["families"]) {
        out << f["family"].get<std::string>() << ":";
        if (f["status"] != "ok") {
            out << " " << f["status"].get<std::string>() << ": " << f.value("error", "") << "\n";
            continue;
        }
        const json& held = f["held_at_once"];
        out << " safe budget " << bytes_or(f["safe_budget"])
            << (f["limit_found"].get<bool>() ? ""
                                             : " (at least: the search did not reach the driver's limit)")
            << ", VRAM it costs " << bytes_or(f["vram_cost_at_budget"]) << "\n";
        if (f.contains("vram_disturbed")) {
            out << "  VRAM: not measured cleanly, another process moved device memory meanwhile: "
                << terminal_text(f["vram_disturbed"].front().get<std::string>()) << "\n";
        }
        out << "  held at once " << bytes_or(held["bytes"]) << " in " << bytes_or(held["chunk"])
            << " chunks: " << held["words"].get<std::string>() << "\n";
        const json& single = f["largest_single"];
        if (single["bytes"].is_number()) {
            out << "  largest single pin " << bytes_or(single["bytes"]) << ": "
                << single["words"].get<std::string>() << "\n";
        } else {  // not measured (--held-only): the words say so and how to measure it
            out << "  largest single pin: " << single["words"].get<std::string>() << "\n";
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
    if (doc.contains("interrupted")) {
        out << "interrupted (" << doc["interrupted"]["signal"].get<std::string>()
            << "): the budget is incomplete\n";
    }
}

}  // namespace pinbench
