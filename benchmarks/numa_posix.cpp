// Linux: bind the calling thread to /sys/bus/pci/devices/<address>/local_cpulist.
#include "numa.hpp"

#include <sched.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>

#include "topology.hpp"

namespace pinbench::bench {

namespace {

std::optional<std::string> read_first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    if (!in || !std::getline(in, line)) return std::nullopt;
    return line;
}

}  // namespace

NumaPlacement place_near_pci_device(const std::string& sysfs_address) {
    NumaPlacement p;
    if (sysfs_address.empty()) {
        p.gpu_node = p.local_cpus = "unknown: no PCI address (NVML unavailable)";
        p.detail = "not placed: the GPU's PCI address is unknown";
        return p;
    }
    const std::string dir = "/sys/bus/pci/devices/" + sysfs_address + "/";
    p.gpu_node = read_first_line(dir + "numa_node").value_or("unknown: cannot read " + dir + "numa_node");
    const auto text = read_first_line(dir + "local_cpulist");
    const auto cpus = text ? parse_cpulist(*text) : std::nullopt;
    if (!cpus) {
        p.local_cpus = "unknown: cannot read or parse " + dir + "local_cpulist";
        p.detail = "not placed: " + p.local_cpus;
        return p;
    }
    p.local_cpus = *text;

    // Only CPUs this process may run on (containers restrict the set).
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        p.detail = std::string("not placed: sched_getaffinity: ") + std::strerror(errno);
        return p;
    }
    cpu_set_t set;
    CPU_ZERO(&set);
    std::ostringstream used;
    int n = 0;
    for (unsigned c : *cpus) {
        if (c < CPU_SETSIZE && CPU_ISSET(c, &allowed)) {
            CPU_SET(c, &set);
            used << (n++ ? "," : "") << c;
        }
    }
    if (n == 0) {
        p.detail = "not placed: none of the GPU's local CPUs is allowed for this process";
        return p;
    }
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        p.detail = std::string("not placed: sched_setaffinity: ") + std::strerror(errno);
        return p;
    }
    p.placed = true;
    p.detail = "main thread bound to CPUs " + used.str() +
               " before any allocation or CUDA context; later threads inherit it and memory is "
               "first-touched there (default local-allocation policy; pages not verified)";
    return p;
}

}  // namespace pinbench::bench
