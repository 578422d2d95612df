// WSL detection from the kernel's own signals (pinbench/probes/environment_facts.hpp: wsl_facts). Pure:
// the POSIX OS probe reads the files and hands their text here, tests hand strings.
//
// Kernel releases as WSL writes them:
//   WSL2: "5.15.167.4-microsoft-standard-WSL2" (since 2021), "4.19.128-microsoft-standard" (older)
//   WSL1: "4.4.0-19041-Microsoft" (no Linux kernel: the number is the Windows build)
// /dev/dxg is the paravirtualized GPU (dxgkrnl), present only in WSL2 kernels; /usr/lib/wsl
// holds the Windows driver's libcuda, NVML and libdxcore.
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

#include "pinbench/probes/environment_facts.hpp"

namespace pinbench {
namespace {

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

bool has(const std::string& text, const char* what) { return lower(text).find(what) != std::string::npos; }

// WSL1's "4.4.0-19041-Microsoft": the digits before "-Microsoft".
std::string wsl1_windows_build(const std::string& release) {
    const std::size_t at = lower(release).find("-microsoft");
    if (at == std::string::npos) return {};
    std::size_t begin = at;
    while (begin > 0 && std::isdigit(static_cast<unsigned char>(release[begin - 1]))) --begin;
    return begin > 0 && release[begin - 1] == '-' && begin < at ? release.substr(begin, at - begin)
                                                                : std::string();
}

// The release in "Linux version <release> (builder) ...": only that part of /proc/version counts
// (a builder's address such as "...@microsoft.com" on Azure Linux kernels is no WSL).
std::string proc_version_release(const std::string& proc_version) {
    constexpr std::string_view prefix = "Linux version ";
    if (proc_version.rfind(prefix, 0) != 0) return {};
    const std::size_t end = proc_version.find(' ', prefix.size());
    return proc_version.substr(prefix.size(),
                               end == std::string::npos ? std::string::npos : end - prefix.size());
}

}  // namespace

std::optional<OsFacts::Wsl> wsl_facts(const WslSignals& s) {
    OsFacts::Wsl wsl;
    const std::string version_release = proc_version_release(s.proc_version);
    const bool release_says = has(s.kernel_release, "microsoft");
    const bool version_says = has(version_release, "microsoft");
    if (release_says) wsl.signals.push_back("kernel release " + s.kernel_release);
    if (version_says && !release_says) wsl.signals.push_back("/proc/version release " + version_release);
    if (s.dev_dxg) wsl.signals.push_back("/dev/dxg");
    if (s.usr_lib_wsl) wsl.signals.push_back("/usr/lib/wsl");
    // /usr/lib/wsl alone (a copied directory, a container's bind mount) is not enough.
    if (!release_says && !version_says && !s.dev_dxg) return std::nullopt;
    const std::string kernel = release_says ? s.kernel_release : version_release;
    const bool wsl2 = s.dev_dxg || has(kernel, "wsl2") || has(kernel, "microsoft-standard");
    wsl.version = wsl2 ? 2 : 1;
    if (const std::string build = wsl2 ? std::string() : wsl1_windows_build(s.kernel_release);
        !build.empty()) {
        wsl.windows_build = Maybe<std::string>::of(build);
    } else {
        wsl.windows_build = Maybe<std::string>::none(
            wsl2 ? "not in the WSL2 kernel's strings; reading it would start a Windows program (interop)"
                 : "not in the kernel release");
    }
    return wsl;
}

}  // namespace pinbench
