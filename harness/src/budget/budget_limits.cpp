#include "budget/budget_limits.hpp"

#include <algorithm>
#include <string_view>

#include "budget/budget_child.hpp"
#include "pinbench/vocabulary/terminal_text.hpp"
#include "pinbench/vocabulary/units.hpp"

namespace pinbench {
namespace {

bool has(std::string_view text, std::string_view part) { return text.find(part) != std::string_view::npos; }

bool ends_with(std::string_view text, std::string_view tail) {
    return text.size() >= tail.size() && text.substr(text.size() - tail.size()) == tail;
}

std::string last_part(const std::string& path) {
    const auto slash = path.find_last_of('/');
    return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Who made a cgroup, from its path: the names container runtimes, Kubernetes, Slurm and systemd
// give the groups they make.
std::string group_name(const std::string& where) {
    const std::string last = last_part(where);
    if (has(where, "kubepods")) {
        // A pod's group is "pod<uid>" (cgroupfs) or "kubepods-<qos>-pod<uid>.slice" (systemd); its
        // containers' groups lie under it.
        const bool pod = last.rfind("pod", 0) == 0 || has(last, "-pod");
        return pod ? "the Kubernetes pod's limit" : "the container's limit";
    }
    for (const char* runtime : {"docker", "libpod", "containerd", "crio", "lxc", "podman"}) {
        if (has(where, runtime)) return "the container's limit";
    }
    if (has(where, "slurm") || has(where, "/job_")) return "the Slurm job's limit";
    if (ends_with(last, ".service") || ends_with(last, ".scope") || ends_with(last, ".slice")) {
        return "the systemd unit's limit (" + last + ")";
    }
    // A limit on the root of what this process sees: a cgroup namespace's root, i.e. a container.
    if (where == "/") return "the container's limit";
    return "the cgroup's limit";
}

}  // namespace

std::string limit_name(const MemoryLimit& l, bool wsl) {
    if (l.kind == limit_kind::host) return wsl ? "the WSL2 VM's memory" : "the host's memory";
    if (l.kind == limit_kind::cgroup_v2 || l.kind == limit_kind::cgroup_v1) return group_name(l.where);
    if (l.kind == limit_kind::rlimit_as) return "the address-space limit";
    if (l.kind == limit_kind::rlimit_data) return "the data-segment limit";
    if (l.kind == limit_kind::job) return "the job object's limit";
    if (l.kind == limit_kind::job_process) return "the job object's per-process limit";
    return "a limit (" + l.kind + ")";
}

std::string limit_words(const MemoryLimit& l, bool wsl) {
    std::string where;
    if (l.kind == limit_kind::host) {
        where = l.file == "MemTotal" ? "MemTotal less MemAvailable" : "total less available physical memory";
    } else if (l.kind == limit_kind::cgroup_v2 || l.kind == limit_kind::cgroup_v1) {
        where = std::string(l.kind == limit_kind::cgroup_v2 ? "cgroup v2 " : "cgroup v1 ") + l.where + ", " +
                l.file;
    } else {
        where = l.where + ", " + l.file;
    }
    const char* use =
        l.scope == LimitScope::process && l.kind != limit_kind::job_process ? " mapped" : " in use";
    // A group's path is any bytes the kernel was given: escaped to one line of valid UTF-8, which
    // the document's JSON and the screen both need.
    return terminal_text(limit_name(l, wsl) + ", " + format_bytes(l.limit) + ", " + format_bytes(l.used) +
                         use + " (" + where + ")");
}

nlohmann::json limit_json(const MemoryLimit& l, std::uint64_t keep_free, bool wsl) {
    nlohmann::json j = {{"kind", l.kind},
                        {"scope", l.scope == LimitScope::shared ? "shared" : "process"},
                        {"where", terminal_text(l.where)},
                        {"file", terminal_text(l.file)},
                        {"limit", l.limit},
                        {"used", l.used},
                        {"room", l.room()},
                        {"margin", margin_of(l, keep_free)},
                        {"name", terminal_text(limit_name(l, wsl))},
                        {"words", limit_words(l, wsl)}};
    if (!l.events.empty()) j["events"] = terminal_text(l.events);
    return j;
}

std::uint64_t margin_of(const MemoryLimit& l, std::uint64_t keep_free) {
    return l.scope == LimitScope::shared ? keep_free : kProcessLimitSlack;
}

Allowance allowance(const std::vector<MemoryLimit>& limits, std::uint64_t keep_free) {
    Allowance a;
    for (std::size_t i = 0; i < limits.size(); ++i) {
        const std::uint64_t room = limits[i].room(), margin = margin_of(limits[i], keep_free);
        const std::uint64_t allowed = room > margin ? room - margin : 0;
        if (!a.bytes || allowed < *a.bytes) {
            a.bytes = allowed;
            a.by = i;
        }
    }
    return a;
}

const char* stop_for(const MemoryLimit& l) {
    if (l.kind == limit_kind::host) return budget_stop::host_available;
    return l.scope == LimitScope::shared ? budget_stop::memory_limit : budget_stop::address_space;
}

std::optional<std::uint64_t> smallest_shared_room(const std::vector<MemoryLimit>& limits) {
    std::optional<std::uint64_t> smallest;
    for (const MemoryLimit& l : limits) {
        if (l.scope == LimitScope::shared && (!smallest || l.room() < *smallest)) smallest = l.room();
    }
    return smallest;
}

nlohmann::json outer_jobs_json(const std::vector<MemoryLimit>& limits) {
    nlohmann::json out = nlohmann::json::array();
    for (const MemoryLimit& l : limits) {
        if (l.kind != limit_kind::job && l.kind != limit_kind::job_process) continue;
        out.push_back({{"kind", l.kind}, {"file", l.file}, {"limit", l.limit}, {"used", l.used}});
    }
    return out;
}

std::vector<MemoryLimit> outer_jobs_of(const nlohmann::json& value) {
    std::vector<MemoryLimit> out;
    if (!value.is_array()) return out;
    for (const nlohmann::json& j : value) {
        if (!j.is_object() || !j.contains("limit") || !j["limit"].is_number_unsigned() ||
            !j.contains("used") || !j["used"].is_number_unsigned()) {
            continue;
        }
        MemoryLimit l;
        l.kind = j.value("kind", "");
        if (l.kind != limit_kind::job && l.kind != limit_kind::job_process) continue;
        l.scope = l.kind == limit_kind::job ? LimitScope::shared : LimitScope::process;
        l.file = j.value("file", "");
        l.limit = j["limit"].get<std::uint64_t>();
        l.used = j["used"].get<std::uint64_t>();
        out.push_back(std::move(l));
    }
    return out;
}

std::optional<std::string> cuda_start_blocked_by(const std::vector<MemoryLimit>& limits,
                                                 const std::string& why) {
    if (!has(why, "CUDA_ERROR_OUT_OF_MEMORY")) return std::nullopt;
    for (const MemoryLimit& l : limits) {
        if (l.kind == limit_kind::rlimit_as || l.kind == limit_kind::rlimit_data) {
            return kCudaBlockedWords + limit_words(l, false) + ": " + why +
                   "; raise the limit (ulimit -v, prlimit --as) or run without it";
        }
    }
    return std::nullopt;
}

}  // namespace pinbench
