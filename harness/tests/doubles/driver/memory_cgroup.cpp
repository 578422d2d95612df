#include "memory_cgroup.hpp"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

namespace pinbench::driver_double {
namespace {

namespace fs = std::filesystem;

struct Files {
    std::string usage, limit, events, peak;
    bool v2 = true;
};

Files files_of(const std::string& folder) {
    const fs::path f(folder);
    if (fs::exists(f / "memory.max")) {
        return {(f / "memory.current").string(), (f / "memory.max").string(), (f / "memory.events").string(),
                (f / "memory.peak").string(), true};
    }
    return {(f / "memory.usage_in_bytes").string(), (f / "memory.limit_in_bytes").string(),
            (f / "memory.oom_control").string(), (f / "memory.max_usage_in_bytes").string(), false};
}

std::string read_text(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void write_text(const std::string& path, const std::string& text) {
    const std::string temp = path + ".double-new";
    {
        std::ofstream out(temp, std::ios::trunc);
        out << text;
    }
    fs::rename(temp, path);
}

std::uint64_t number_in(const std::string& path) {
    const std::string text = read_text(path);
    if (text.rfind("max", 0) == 0) return UINT64_MAX;
    return text.empty() ? 0 : std::stoull(text);
}

// memory.events / memory.oom_control: "KEY VALUE" lines, with `oom` and `oom_kill` raised by one.
void count_oom_kill(const Files& f) {
    std::map<std::string, std::uint64_t> counts;
    std::vector<std::string> order;
    std::istringstream lines(read_text(f.events));
    std::string key;
    std::uint64_t value = 0;
    while (lines >> key >> value) {
        if (!counts.count(key)) order.push_back(key);
        counts[key] = value;
    }
    for (const char* k : {f.v2 ? "oom" : "under_oom", "oom_kill"}) {
        if (!counts.count(k)) order.push_back(k);
        counts[k] += f.v2 || std::string(k) == "oom_kill" ? 1 : 0;
    }
    std::string text;
    for (const std::string& k : order) text += k + " " + std::to_string(counts[k]) + "\n";
    write_text(f.events, text);
}

void set_usage(const Files& f, std::uint64_t usage) {
    write_text(f.usage, std::to_string(usage) + "\n");
    const std::uint64_t peak = fs::exists(f.peak) ? number_in(f.peak) : 0;
    if (usage > peak) write_text(f.peak, std::to_string(usage) + "\n");
}

std::vector<Files> groups_of(const std::string& folders) {
    std::vector<Files> out;
    std::istringstream list(folders);
    for (std::string folder; std::getline(list, folder, ',');) {
        if (!folder.empty()) out.push_back(files_of(folder));
    }
    return out;
}

}  // namespace

void cgroup_charge(const std::string& folders, std::uint64_t bytes, std::uint64_t process_holds) {
    const std::vector<Files> groups = groups_of(folders);
    for (const Files& f : groups) {
        if (number_in(f.usage) + bytes <= number_in(f.limit)) continue;
        // The OOM killer of this group: it counts the kill, and every group gives back what the
        // killed process held.
        count_oom_kill(f);
        for (const Files& g : groups) {
            const std::uint64_t usage = number_in(g.usage);
            write_text(g.usage, std::to_string(usage > process_holds ? usage - process_holds : 0) + "\n");
        }
        std::fflush(nullptr);
#ifdef SIGKILL
        std::raise(SIGKILL);
#endif
        std::_Exit(137);  // where there is no SIGKILL (Windows): ended all the same
    }
    for (const Files& f : groups) set_usage(f, number_in(f.usage) + bytes);
}

void cgroup_uncharge(const std::string& folders, std::uint64_t bytes) {
    for (const Files& f : groups_of(folders)) {
        const std::uint64_t usage = number_in(f.usage);
        set_usage(f, usage > bytes ? usage - bytes : 0);
    }
}

void cgroup_grow(const std::string& folders, std::uint64_t bytes) {
    for (const Files& f : groups_of(folders)) set_usage(f, number_in(f.usage) + bytes);
}

}  // namespace pinbench::driver_double
