#include "topology.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <sstream>

namespace pinbench::bench {

LinkRate pcie_link_rate(unsigned generation, unsigned width) {
    static constexpr double gigatransfers[] = {2.5, 5.0, 8.0, 16.0, 32.0};
    if (width == 0) return {std::nullopt, "not computed: link width 0"};
    if (generation == 0) return {std::nullopt, "not computed: link generation 0"};
    if (generation >= 6) {
        return {std::nullopt, "not computed: PCIe Gen" + std::to_string(generation) +
                                  " uses PAM4 with FLIT encoding; its efficiency is not modelled"};
    }
    const double gt = gigatransfers[generation - 1];
    const bool old = generation <= 2;
    const double efficiency = old ? 8.0 / 10.0 : 128.0 / 130.0;
    std::ostringstream basis;
    basis << "PCIe Gen" << generation << " x" << width << ": " << gt << " GT/s per lane, "
          << (old ? "8b/10b" : "128b/130b") << " encoding";
    return {gt * 1e9 * width * efficiency / 8.0, basis.str()};
}

namespace {

bool all_hex(const std::string& s) {
    return !s.empty() &&
           std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isxdigit(c) != 0; });
}

struct PciParts {
    unsigned long domain, bus, device, function;
};

std::optional<PciParts> split_pci(const std::string& text) {
    // domain:bus:device.function, hex.
    const auto c1 = text.find(':');
    const auto c2 = c1 == std::string::npos ? c1 : text.find(':', c1 + 1);
    const auto dot = c2 == std::string::npos ? c2 : text.find('.', c2 + 1);
    if (dot == std::string::npos) return std::nullopt;
    const std::string d = text.substr(0, c1), b = text.substr(c1 + 1, c2 - c1 - 1),
                      v = text.substr(c2 + 1, dot - c2 - 1), f = text.substr(dot + 1);
    if (!all_hex(d) || !all_hex(b) || !all_hex(v) || !all_hex(f) || d.size() > 8 || b.size() > 2 ||
        v.size() > 2 || f.size() > 1) {
        return std::nullopt;
    }
    return PciParts{std::stoul(d, nullptr, 16), std::stoul(b, nullptr, 16), std::stoul(v, nullptr, 16),
                    std::stoul(f, nullptr, 16)};
}

}  // namespace

std::optional<std::string> sysfs_pci_address(const std::string& nvml_bus_id) {
    std::string text = nvml_bus_id;
    while (!text.empty() && (text.back() == '\0' || std::isspace(static_cast<unsigned char>(text.back())))) {
        text.pop_back();
    }
    const auto p = split_pci(text);
    if (!p || p->domain > 0xffff) return std::nullopt;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04lx:%02lx:%02lx.%lx", p->domain, p->bus, p->device, p->function);
    return std::string(buf);
}

bool same_pci_device(const std::string& pci_address, unsigned domain, unsigned bus, unsigned device) {
    const auto p = split_pci(pci_address);
    return p && p->domain == domain && p->bus == bus && p->device == device;
}

std::optional<std::vector<unsigned>> parse_cpulist(const std::string& text) {
    std::string s = text;
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.pop_back();
    if (s.empty()) return std::nullopt;
    auto number = [](const std::string& t) -> std::optional<unsigned> {
        if (t.empty() || t.size() > 9 ||
            !std::all_of(t.begin(), t.end(), [](unsigned char c) { return std::isdigit(c) != 0; })) {
            return std::nullopt;
        }
        return static_cast<unsigned>(std::stoul(t));
    };
    std::vector<unsigned> cpus;
    std::size_t start = 0;
    while (start <= s.size()) {
        const std::size_t comma = std::min(s.find(',', start), s.size());
        const std::string item = s.substr(start, comma - start);
        const std::size_t dash = item.find('-');
        const auto lo = number(item.substr(0, dash));
        const auto hi = dash == std::string::npos ? lo : number(item.substr(dash + 1));
        if (!lo || !hi || *hi < *lo) return std::nullopt;
        for (unsigned c = *lo; c <= *hi; ++c) cpus.push_back(c);
        start = comma + 1;
    }
    std::sort(cpus.begin(), cpus.end());
    cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
    return cpus;
}

}  // namespace pinbench::bench
