#include "pinbench/probes/device_map.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>

namespace pinbench {

std::string normalized_pci_bus_id(std::string_view text) {
    // domain ':' bus ':' device '.' function, each hex.
    unsigned long parts[4] = {};
    const char separators[3] = {':', ':', '.'};
    std::size_t pos = 0;
    for (int i = 0; i < 4; ++i) {
        const std::size_t start = pos;
        while (pos < text.size() && std::isxdigit(static_cast<unsigned char>(text[pos]))) ++pos;
        if (pos == start || pos - start > 8) return "";
        parts[i] = std::strtoul(std::string(text.substr(start, pos - start)).c_str(), nullptr, 16);
        if (i < 3) {
            if (pos >= text.size() || text[pos] != separators[i]) return "";
            ++pos;
        }
    }
    if (pos != text.size()) return "";
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04lx:%02lx:%02lx.%lx", parts[0], parts[1], parts[2], parts[3]);
    return buf;
}

std::vector<std::optional<unsigned>> map_cuda_to_nvml(const std::vector<DeviceIdentity>& cuda,
                                                      const std::vector<DeviceIdentity>& nvml) {
    std::vector<std::optional<unsigned>> out;
    for (const auto& c : cuda) {
        std::optional<unsigned> match;
        for (unsigned i = 0; i < nvml.size() && !match; ++i) {
            if (!c.uuid.empty() && c.uuid == nvml[i].uuid) match = i;
        }
        const std::string bus = normalized_pci_bus_id(c.pci_bus_id);
        for (unsigned i = 0; i < nvml.size() && !match && !bus.empty(); ++i) {
            if (bus == normalized_pci_bus_id(nvml[i].pci_bus_id)) match = i;
        }
        out.push_back(match);
    }
    return out;
}

}  // namespace pinbench
