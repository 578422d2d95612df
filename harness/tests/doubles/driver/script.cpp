#include "script.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace pinbench::driver_double {
namespace {

std::string trimmed(const std::string& s) {
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string::npos) return {};
    return s.substr(first, s.find_last_not_of(" \t\r") - first + 1);
}

// "123", "64KiB", "2MiB", "1GiB": bytes.
std::uint64_t size_of(const std::string& text) {
    std::size_t used = 0;
    const unsigned long long number = std::stoull(text, &used);
    const std::string unit = trimmed(text.substr(used));
    if (unit.empty() || unit == "B") return number;
    if (unit == "KiB") return number << 10;
    if (unit == "MiB") return number << 20;
    if (unit == "GiB") return number << 30;
    throw std::invalid_argument("unknown size unit '" + unit + "' (B, KiB, MiB, GiB)");
}

int int_of(const std::string& text) {
    std::size_t used = 0;
    const int value = std::stoi(text, &used);
    if (used != text.size()) throw std::invalid_argument("not an integer: '" + text + "'");
    return value;
}

// The entry points whose calls the double can fail (where each calls Driver::scripted): a failure
// scripted on another would never fire, so it is refused.
constexpr const char* failing_entry_points[] = {
    "cuInit",        "cuDevicePrimaryCtxRetain", "cuCtxSynchronize",        "cuMemGetInfo_v2",
    "cuMemAlloc_v2", "cuMemHostAlloc",           "cuMemAllocHost_v2",       "cuMemHostRegister_v2",
    "cuMemCreate",   "cuMemPoolCreate",          "cuMemAllocFromPoolAsync", "cuModuleLoadData",
    "cuLaunchKernel"};

const std::string& failing_entry_point(const std::string& name) {
    for (const char* known : failing_entry_points) {
        if (name == known) return name;
    }
    throw std::invalid_argument("the double cannot fail '" + name +
                                "' (docs/test-double.md lists what it can)");
}

// "name.rest" -> {"name", "rest"}; rest empty when there is no dot.
std::pair<std::string, std::string> split_key(const std::string& key) {
    const auto dot = key.find('.');
    if (dot == std::string::npos) return {key, {}};
    return {key.substr(0, dot), key.substr(dot + 1)};
}

void apply(Script& s, const std::string& key, const std::string& value) {
    const auto [head, rest] = split_key(key);
    if (key == "devices") {
        s.devices = int_of(value);
        if (s.devices < 0 || s.devices > max_devices) {
            throw std::invalid_argument("devices must be 0.." + std::to_string(max_devices));
        }
    } else if (key == "total_memory") {
        s.total_memory = size_of(value);
    } else if (key == "reserved_memory") {
        s.reserved_memory = size_of(value);
    } else if (key == "context_cost") {
        s.context_cost = size_of(value);
    } else if (key == "init_cost") {
        s.init_cost = size_of(value);
    } else if (key == "vmm_granularity") {
        s.vmm_granularity = size_of(value);
        if (s.vmm_granularity == 0) throw std::invalid_argument("vmm_granularity must be > 0");
    } else if (key == "cuda_driver_version") {
        s.cuda_driver_version = int_of(value);
    } else if (key == "compute_capability") {
        const auto dot = value.find('.');
        if (dot == std::string::npos) throw std::invalid_argument("compute_capability is MAJOR.MINOR");
        s.compute_capability_major = int_of(value.substr(0, dot));
        s.compute_capability_minor = int_of(value.substr(dot + 1));
    } else if (head == "pin_cost_per_gib" && !rest.empty()) {
        s.pin_costs[rest].per_gib_bytes = size_of(value);
    } else if (head == "pin_cost_base" && !rest.empty()) {
        s.pin_costs[rest].base_bytes = size_of(value);
    } else if (head == "fail_call" && !rest.empty()) {
        s.failures[failing_entry_point(rest)].nth_call = std::stoull(value);
    } else if (head == "fail_above" && !rest.empty()) {
        s.failures[failing_entry_point(rest)].above_bytes = size_of(value);
    } else if (head == "fail_error" && !rest.empty()) {
        s.failures[failing_entry_point(rest)].error = int_of(value);
    } else if (key == "pin_limit") {
        s.pin_limit = size_of(value);
    } else if (key == "poison_after_failure") {
        if (value != "on" && value != "off") throw std::invalid_argument("poison_after_failure is on or off");
        s.poison_after_failure = value == "on";
    } else if (head == "fallback_above" && !rest.empty()) {
        if (rest != "cuMemHostAlloc" && rest != "cuMemAllocHost_v2" && rest != "cuMemHostRegister_v2") {
            throw std::invalid_argument("fallback_above takes a host-pinning entry point, not '" + rest +
                                        "'");
        }
        s.fallback_above[rest] = size_of(value);
    } else if (key == "pin_delay_ms") {
        s.pin_delay_ms = int_of(value);
        if (s.pin_delay_ms < 0) throw std::invalid_argument("pin_delay_ms must be >= 0");
    } else if (key == "blind") {
        std::stringstream list(value);
        for (std::string probe; std::getline(list, probe, ',');) {
            probe = trimmed(probe);
            if (probe != "cuMemGetInfo" && probe != "nvml") {
                throw std::invalid_argument("blind takes cuMemGetInfo and/or nvml, not '" + probe + "'");
            }
            s.blind.insert(probe);
        }
    } else if (key == "nvml_process_memory") {
        if (value != "not_available" && value != "available") {
            throw std::invalid_argument("nvml_process_memory is available or not_available");
        }
        s.nvml_process_memory_not_available = value == "not_available";
    } else if (key == "memory_cgroup") {
        s.memory_cgroup = value;
    } else if (key == "neighbour_grows") {
        s.neighbour_grows = size_of(value);
    } else if (key == "neighbour_grows_at") {
        s.neighbour_grows_at = std::stoull(value);
        if (s.neighbour_grows_at == 0) throw std::invalid_argument("neighbour_grows_at counts from 1");
    } else if (key == "state") {
        s.state_path = value;
    } else {
        throw std::invalid_argument("unknown key '" + key + "' (docs/test-double.md lists the keys)");
    }
}

}  // namespace

std::uint64_t PinCost::of(std::uint64_t pinned) const {
    const unsigned __int128 scaled = static_cast<unsigned __int128>(pinned) * per_gib_bytes;
    const unsigned __int128 gib = std::uint64_t{1} << 30;
    return base_bytes + static_cast<std::uint64_t>((scaled + gib - 1) / gib);
}

PinCost Script::pin_cost(const std::string& api, unsigned flags) const {
    if (const auto it = pin_costs.find(api + ":" + std::to_string(flags)); it != pin_costs.end()) {
        return it->second;
    }
    if (const auto it = pin_costs.find(api); it != pin_costs.end()) return it->second;
    return {};
}

std::optional<std::size_t> Script::counted_index(const std::string& entry) const {
    std::size_t i = 0;
    for (const auto& [name, failure] : failures) {
        if (name == entry) return failure.nth_call ? std::optional<std::size_t>(i) : std::nullopt;
        ++i;
    }
    return std::nullopt;
}

Script parse_script(const std::string& text, const std::string& path) {
    Script s;
    s.path = path;
    std::istringstream in(text);
    int line_number = 0;
    for (std::string line; std::getline(in, line);) {
        ++line_number;
        if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
        line = trimmed(line);
        if (line.empty()) continue;
        const auto eq = line.find('=');
        try {
            if (eq == std::string::npos) throw std::invalid_argument("expected KEY=VALUE");
            apply(s, trimmed(line.substr(0, eq)), trimmed(line.substr(eq + 1)));
        } catch (const std::logic_error& e) {  // invalid_argument and stoull's out_of_range
            throw std::invalid_argument(std::to_string(line_number) + ": " + e.what());
        }
    }
    if (s.reserved_memory > s.total_memory) {
        throw std::invalid_argument("reserved_memory exceeds total_memory");
    }
    if (s.state_path.empty() && !path.empty()) s.state_path = path + ".state";
    return s;
}

Script load_script() {
    const char* path = std::getenv(script_variable);
    if (path == nullptr || *path == '\0') return {};
    std::ifstream file(path, std::ios::binary);
    if (!file) {
        std::fprintf(stderr, "pinbench driver double: cannot read %s=%s\n", script_variable, path);
        std::abort();
    }
    std::ostringstream text;
    text << file.rdbuf();
    try {
        return parse_script(text.str(), path);
    } catch (const std::invalid_argument& e) {
        std::fprintf(stderr, "pinbench driver double: %s:%s\n", path, e.what());
        std::abort();
    }
}

}  // namespace pinbench::driver_double
