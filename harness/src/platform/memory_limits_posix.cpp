// Linux's memory limits of this process (platform/memory_limits.hpp): the host's /proc/meminfo,
// the cgroup v2 and v1 memory groups from /proc/self/cgroup up to their mount's root (found in
// /proc/self/mountinfo), and RLIMIT_AS / RLIMIT_DATA against VmSize / VmData.
#include "platform/memory_limits.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench {
namespace {

// A kernel file is small; a hostile or broken one is cut here instead of read whole.
constexpr std::size_t kLargestFile = std::size_t{4} << 20;
// cgroup v1 writes "no limit" as the page counter's largest value (9223372036854771712 with 4 KiB
// pages): any value this large is no limit.
constexpr std::uint64_t kNoLimitV1 = std::uint64_t{1} << 62;

std::optional<std::string> read_small(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return std::nullopt;
    std::string text;
    text.resize(kLargestFile);
    in.read(text.data(), static_cast<std::streamsize>(text.size()));
    text.resize(static_cast<std::size_t>(in.gcount()));
    return text;
}

std::string trimmed(std::string_view s) {
    const auto first = s.find_first_not_of(" \t\r\n");
    if (first == std::string_view::npos) return {};
    const auto last = s.find_last_not_of(" \t\r\n");
    return std::string(s.substr(first, last - first + 1));
}

std::optional<std::uint64_t> number(std::string_view s) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
    return v;
}

// "KEY VALUE" lines (memory.stat, memory.events, memory.oom_control): VALUE of KEY.
std::optional<std::uint64_t> keyed(const std::string& text, std::string_view key) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        const auto space = line.find(' ');
        if (space == std::string::npos || std::string_view(line).substr(0, space) != key) continue;
        return number(trimmed(std::string_view(line).substr(space + 1)));
    }
    return std::nullopt;
}

// /proc/meminfo's and /proc/self/status's "Key:   N kB" lines.
std::optional<std::uint64_t> kib_field(const std::string& text, std::string_view key) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.compare(0, key.size(), key) != 0 || line.size() <= key.size() || line[key.size()] != ':') {
            continue;
        }
        std::istringstream fields(line.substr(key.size() + 1));
        std::string value, unit;
        fields >> value >> unit;
        const auto v = number(value);
        if (!v || *v > (std::uint64_t{1} << 53)) return std::nullopt;
        return unit == "kB" ? *v * 1024 : *v;
    }
    return std::nullopt;
}

std::string joined(const std::string& a, const std::string& b) {
    if (b.empty() || b == "/") return a;
    if (a.empty() || a.back() != '/') return b.front() == '/' ? a + b : a + "/" + b;
    return b.front() == '/' ? a + b.substr(1) : a + b;
}

// mountinfo writes a space, tab, newline or backslash in a path as \ooo (octal).
std::string unescaped(const std::string& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '\\' && i + 3 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])) &&
            std::isdigit(static_cast<unsigned char>(s[i + 2])) &&
            std::isdigit(static_cast<unsigned char>(s[i + 3]))) {
            out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 + (s[i + 3] - '0'));
            i += 3;
        } else {
            out += s[i];
        }
    }
    return out;
}

struct Mount {
    std::string root;   // the mounted folder's path inside its hierarchy ("/" or a group's)
    std::string point;  // where it is mounted
};

// The cgroup2 mounts and the cgroup v1 mounts that hold the memory controller, from mountinfo
// ("ID PARENT MAJ:MIN ROOT POINT OPTIONS [OPTIONAL...] - FSTYPE SOURCE SUPEROPTIONS"), in order.
void find_mounts(const std::string& mountinfo, std::vector<Mount>* v2, std::vector<Mount>* v1) {
    std::istringstream lines(mountinfo);
    std::string line;
    while (std::getline(lines, line)) {
        std::istringstream in(line);
        std::vector<std::string> fields{std::istream_iterator<std::string>(in),
                                        std::istream_iterator<std::string>()};
        std::size_t dash = 0;
        while (dash < fields.size() && fields[dash] != "-") ++dash;
        if (dash < 5 || dash + 3 > fields.size()) continue;
        const std::string& type = fields[dash + 1];
        const std::string& super = fields[dash + 3 < fields.size() ? dash + 3 : dash + 2];
        Mount m{unescaped(fields[3]), unescaped(fields[4])};
        if (type == "cgroup2") v2->push_back(m);
        if (type == "cgroup") {
            std::istringstream options(super);
            std::string o;
            while (std::getline(options, o, ',')) {
                if (o == "memory") v1->push_back(m);
            }
        }
    }
}

// The folder of `group` (a /proc/self/cgroup path) under `mount`, relative to the mount's own
// root; nothing when the group lies outside what is mounted (a namespace's view).
std::optional<std::string> group_folder(const std::string& fs_root, const Mount& mount,
                                        const std::string& group) {
    std::string rel;
    if (mount.root == "/" || mount.root.empty()) {
        rel = group;
    } else if (group == mount.root || group.compare(0, mount.root.size() + 1, mount.root + "/") == 0) {
        rel = group.substr(mount.root.size());
    } else {
        return std::nullopt;
    }
    return joined(joined(fs_root, mount.point), rel);
}

// The group's path and each one above it, up to the hierarchy's root ("/"), innermost first.
std::vector<std::string> up_from(const std::string& group) {
    std::vector<std::string> out;
    std::string g = group.empty() ? "/" : group;
    while (true) {
        out.push_back(g);
        if (g == "/") break;
        const auto slash = g.find_last_of('/');
        g = slash == 0 || slash == std::string::npos ? "/" : g.substr(0, slash);
    }
    return out;
}

struct GroupFiles {
    const char* kind;
    std::vector<const char*> limits;  // files whose value is a limit
    const char* usage;
    const char* inactive_file;  // memory.stat's key of the inactive page cache
    const char* events;
};

const GroupFiles kV2{
    limit_kind::cgroup_v2, {"memory.max", "memory.high"}, "memory.current", "inactive_file", "memory.events"};
const GroupFiles kV1{limit_kind::cgroup_v1,
                     {"memory.limit_in_bytes"},
                     "memory.usage_in_bytes",
                     "total_inactive_file",
                     "memory.oom_control"};

// Walks one hierarchy from this process's group up to the mount's root: a limit for each file
// of `files.limits` that holds a number (cgroup v2's "max" and v1's largest value are none).
void read_hierarchy(const std::string& fs_root, const Mount& mount, const std::string& group,
                    const GroupFiles& files, MemoryLimits& out) {
    bool first = true;
    for (const std::string& g : up_from(group)) {
        const auto folder = group_folder(fs_root, mount, g);
        if (!folder) {
            // Above what the mount shows: its limits cannot be read here. This process's own group
            // outside it (a cgroup namespace whose mount is the host's, root "/..") is said.
            if (first) {
                out.notes.push_back(std::string(files.kind) + " " + g +
                                    ": outside what its mount shows (root '" + mount.root +
                                    "'): its limits cannot be read");
            }
            first = false;
            continue;
        }
        first = false;
        for (const char* file : files.limits) {
            const auto text = read_small(joined(*folder, file));
            if (!text) continue;  // the root group has none; a controller not enabled here has none
            const std::string value = trimmed(*text);
            if (value == "max") continue;
            const auto limit = number(value);
            if (!limit) {
                out.notes.push_back(std::string(files.kind) + " " + g + ": " + file + " is not a number ('" +
                                    value.substr(0, 40) + "')");
                continue;
            }
            if (files.kind == kV1.kind && *limit >= kNoLimitV1) continue;
            MemoryLimit l;
            l.kind = files.kind;
            l.scope = LimitScope::shared;
            l.where = g;
            l.file = file;
            l.limit = *limit;
            const auto usage = read_small(joined(*folder, files.usage));
            const auto used = usage ? number(trimmed(*usage)) : std::nullopt;
            if (!used) {
                // A limit whose use cannot be read: as if it were full, so nothing is asked for.
                out.notes.push_back(std::string(files.kind) + " " + g + ": " + files.usage +
                                    " unreadable; the limit is taken as full");
                l.used = l.limit;
            } else {
                l.used = *used;
                // The inactive page cache is given back before the OOM killer runs (as `docker
                // stats` counts a container's use).
                if (const auto stat = read_small(joined(*folder, "memory.stat"))) {
                    if (const auto inactive = keyed(*stat, files.inactive_file);
                        inactive && *inactive <= l.used) {
                        l.used -= *inactive;
                    }
                }
            }
            l.events = joined(*folder, files.events);
            out.limits.push_back(std::move(l));
        }
    }
}

void read_cgroups(const std::string& fs_root, MemoryLimits& out) {
    const auto cgroup = read_small(joined(fs_root, "proc/self/cgroup"));
    if (!cgroup) {
        out.notes.push_back("cgroups: /proc/self/cgroup unreadable");
        return;
    }
    std::optional<std::string> v2_group, v1_group;
    std::istringstream lines(*cgroup);
    std::string line;
    while (std::getline(lines, line)) {
        // "ID:CONTROLLERS:PATH"; v2's is "0::PATH".
        const auto a = line.find(':');
        const auto b = a == std::string::npos ? a : line.find(':', a + 1);
        if (b == std::string::npos) continue;
        const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
        if (path.empty() || path.front() != '/') continue;
        if (line.compare(0, a, "0") == 0 && controllers.empty()) v2_group = path;
        std::istringstream names(controllers);
        std::string name;
        while (std::getline(names, name, ',')) {
            if (name == "memory") v1_group = path;
        }
    }
    std::vector<Mount> v2_mounts, v1_mounts;
    if (const auto mountinfo = read_small(joined(fs_root, "proc/self/mountinfo"))) {
        find_mounts(*mountinfo, &v2_mounts, &v1_mounts);
    } else {
        // The usual places, where mountinfo cannot be read.
        v2_mounts.push_back({"/", "/sys/fs/cgroup"});
        v1_mounts.push_back({"/", "/sys/fs/cgroup/memory"});
        out.notes.push_back("cgroups: /proc/self/mountinfo unreadable; /sys/fs/cgroup assumed");
    }
    // The mount that shows this process's group: the last such (a later mount on the same point
    // hides the earlier, as a container's own cgroup2 mount hides the host's), else the last one.
    const auto pick = [&](const std::vector<Mount>& mounts,
                          const std::string& group) -> std::optional<Mount> {
        for (auto m = mounts.rbegin(); m != mounts.rend(); ++m) {
            if (group_folder(fs_root, *m, group)) return *m;
        }
        return mounts.empty() ? std::nullopt : std::optional<Mount>(mounts.back());
    };
    if (v1_group) {
        if (const auto m = pick(v1_mounts, *v1_group)) read_hierarchy(fs_root, *m, *v1_group, kV1, out);
    }
    if (v2_group) {
        if (const auto m = pick(v2_mounts, *v2_group)) read_hierarchy(fs_root, *m, *v2_group, kV2, out);
    }
}

void read_rlimit(const std::string& status, int resource, const char* kind, const char* name,
                 const char* field, MemoryLimits& out) {
    rlimit rl{};
    if (::getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return;
    MemoryLimit l;
    l.kind = kind;
    l.scope = LimitScope::process;
    l.where = name;
    l.file = field;
    l.limit = static_cast<std::uint64_t>(rl.rlim_cur);
    const auto used = kib_field(status, field);
    if (!used) {
        out.notes.push_back(std::string(name) + ": /proc/self/status has no " + field +
                            "; the limit is taken as full");
    }
    l.used = used.value_or(l.limit);
    out.limits.push_back(std::move(l));
}

}  // namespace

MemorySources memory_sources() {
    MemorySources s;
    if (const char* root = std::getenv(kMemoryRootVariable); root != nullptr && *root != '\0') s.root = root;
    return s;
}

MemoryLimits read_memory_limits(const MemorySources& sources) {
    MemoryLimits out;
    const std::string& root = sources.root;
    if (const auto meminfo = read_small(joined(root, "proc/meminfo"))) {
        const auto total = kib_field(*meminfo, "MemTotal"), available = kib_field(*meminfo, "MemAvailable");
        if (total && available) {
            MemoryLimit host;
            host.kind = limit_kind::host;
            host.where = "host";
            host.file = "MemTotal";
            host.limit = *total;
            host.used = *total > *available ? *total - *available : 0;
            out.limits.push_back(std::move(host));
        } else {
            out.notes.push_back("host: /proc/meminfo has no MemTotal or MemAvailable");
        }
    } else {
        out.notes.push_back("host: /proc/meminfo unreadable");
    }
    read_cgroups(root, out);
    const std::string status = read_small(joined(root, "proc/self/status")).value_or("");
    read_rlimit(status, RLIMIT_AS, limit_kind::rlimit_as, "RLIMIT_AS", "VmSize", out);
    read_rlimit(status, RLIMIT_DATA, limit_kind::rlimit_data, "RLIMIT_DATA", "VmData", out);
    return out;
}

std::optional<OomCounts> read_oom_counts(const std::string& events_path) {
    const auto text = read_small(events_path);
    if (!text) return std::nullopt;
    OomCounts c;
    c.oom = keyed(*text, "oom").value_or(0);
    const auto kill = keyed(*text, "oom_kill");
    if (!kill && !keyed(*text, "oom")) return std::nullopt;  // neither counter: not an events file
    c.oom_kill = kill.value_or(0);
    return c;
}

bool volunteer_for_oom_killer(std::string* why) {
    std::ofstream adj("/proc/self/oom_score_adj");
    if (!(adj << "1000" << std::flush)) {
        if (why) *why = std::string("cannot write /proc/self/oom_score_adj: ") + std::strerror(errno);
        return false;
    }
    return true;
}

}  // namespace pinbench
