// Platform probes outside Windows: the DXGI and PDH keys exist but read "not available", so
// results from every OS carry the same keys. The OS record comes from uname, sysconf and
// /etc/os-release.
#include "pinbench/probes/platform_probes.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string_view>

namespace pinbench {
namespace {

constexpr const char* kNotWindows = "not Windows";

class UnavailableProbe final : public Probe {
public:
    UnavailableProbe(std::string name, std::string source, std::vector<std::string> keys, std::string why)
        : name_(std::move(name)), source_(std::move(source)), keys_(std::move(keys)), why_(std::move(why)) {}
    std::string name() const override { return name_; }
    std::string source() const override { return source_; }
    void read(Readings& out) override {
        for (const auto& key : keys_) out[key] = Reading::not_available(why_);
    }

private:
    std::string name_;
    std::string source_;
    std::vector<std::string> keys_;
    std::string why_;
};

// os-release values are shell-quoted: strip the quotes and undo backslash escapes in "...".
std::string unquote_os_release(std::string value) {
    if (value.size() < 2 || (value.front() != '"' && value.front() != '\'') ||
        value.back() != value.front()) {
        return value;
    }
    const char quote = value.front();
    value = value.substr(1, value.size() - 2);
    if (quote == '\'') return value;
    std::string out;
    for (std::size_t i = 0; i < value.size(); ++i) {
        if (value[i] == '\\' && i + 1 < value.size()) ++i;
        out += value[i];
    }
    return out;
}

Maybe<std::string> os_release_pretty_name() {
    // /etc/os-release, falling back to /usr/lib/os-release (os-release(5)).
    for (const char* file : {"/etc/os-release", "/usr/lib/os-release"}) {
        std::ifstream in(file);
        if (!in) continue;
        std::string line;
        constexpr std::string_view key = "PRETTY_NAME=";
        while (std::getline(in, line)) {
            if (line.rfind(key, 0) == 0) {
                return Maybe<std::string>::of(unquote_os_release(line.substr(key.size())));
            }
        }
        return Maybe<std::string>::none(std::string("no PRETTY_NAME in ") + file);
    }
    return Maybe<std::string>::none("neither /etc/os-release nor /usr/lib/os-release is readable");
}

std::string first_line_of(const char* file) {
    std::ifstream in(file);
    std::string line;
    if (in) std::getline(in, line);
    return line;
}

bool exists(const char* path) {
    std::error_code ec;
    return std::filesystem::exists(path, ec);
}

}  // namespace

std::vector<std::unique_ptr<Probe>> make_platform_probes(const std::optional<Luid>& /*luid*/,
                                                         std::uint32_t /*pid*/) {
    std::vector<std::unique_ptr<Probe>> probes;
    probes.push_back(std::make_unique<UnavailableProbe>(
        "dxgi", "IDXGIAdapter3::QueryVideoMemoryInfo (Windows only)",
        std::vector<std::string>{"dxgi.local.usage", "dxgi.local.budget", "dxgi.nonlocal.usage",
                                 "dxgi.nonlocal.budget"},
        kNotWindows));
    probes.push_back(std::make_unique<UnavailableProbe>(
        "pdh", "PDH \"GPU Process Memory\" / \"GPU Adapter Memory\" counters (Windows only)",
        std::vector<std::string>{"pdh.process.dedicated", "pdh.process.shared", "pdh.adapter.dedicated",
                                 "pdh.adapter.shared"},
        kNotWindows));
    return probes;
}

nlohmann::json list_os_adapters() { return nlohmann::json::array(); }

OsFacts os_facts() {
    OsFacts os;
#ifdef __linux__
    os.platform = "linux";
#else
    os.platform = "posix";
#endif
    os.os_name = os_release_pretty_name();
    utsname u{};
    if (::uname(&u) == 0) {
        os.kernel = Maybe<std::string>::of(u.release);
        os.os_build = Maybe<std::string>::of(u.version);
        os.hostname = Maybe<std::string>::of(u.nodename);
    } else {
        os.kernel = os.os_build = os.hostname = Maybe<std::string>::none("uname failed");
    }
    WslSignals wsl;
    wsl.kernel_release = os.kernel->value ? *os.kernel->value : first_line_of("/proc/sys/kernel/osrelease");
    wsl.proc_version = first_line_of("/proc/version");
    wsl.dev_dxg = exists("/dev/dxg");
    wsl.usr_lib_wsl = exists("/usr/lib/wsl");
    os.wsl = wsl_facts(wsl);
    // Physical pages at the time of the call: on a VM with memory hot-plug or ballooning this
    // may change (grow) while the suite runs.
    const long pages = ::sysconf(_SC_PHYS_PAGES);
    const long page_size = ::sysconf(_SC_PAGE_SIZE);
    os.host_ram_bytes = pages > 0 && page_size > 0
                            ? Maybe<std::uint64_t>::of(static_cast<std::uint64_t>(pages) * page_size)
                            : Maybe<std::uint64_t>::none("sysconf(_SC_PHYS_PAGES) failed");
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    os.cpu_count = cpus > 0 ? Maybe<std::uint64_t>::of(static_cast<std::uint64_t>(cpus))
                            : Maybe<std::uint64_t>::none("sysconf(_SC_NPROCESSORS_ONLN) failed");
    return os;
}

std::uint32_t current_process_id() { return static_cast<std::uint32_t>(::getpid()); }

}  // namespace pinbench
