// Pure helpers of the benchmark context: the PCIe link's theoretical rate, PCI address
// spellings and Linux CPU lists. No OS or CUDA calls, so the CPU tests cover them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "pinbench/vocabulary/units.hpp"

namespace pinbench::bench {

// The link's theoretical data rate in one direction after line encoding, from a PCIe
// generation and lane count: GT/s per lane (Gen1..5: 2.5, 5, 8, 16, 32) x lanes x encoding
// efficiency (Gen1/2: 8b/10b, Gen3+: 128b/130b) / 8 bits. Gen5 x16: 63.015 GB/s. Packet
// (TLP/DLLP) overhead is not subtracted: it depends on the payload size the platform uses.
// Gen6+ (PAM4, FLIT mode with FEC) is not computed: bytes_per_second stays empty and
// `basis` says why, as it does for an unknown generation or a zero width.
struct LinkRate {
    std::optional<double> bytes_per_second;
    std::string basis;  // e.g. "PCIe Gen5 x16: 32 GT/s per lane, 128b/130b encoding"
};
LinkRate pcie_link_rate(unsigned generation, unsigned width);

// NVML's bus id ("00000000:3B:00.0", 8-digit domain, upper case) as sysfs spells it
// ("0000:3b:00.0"). nullopt when the text is not domain:bus:device.function.
std::optional<std::string> sysfs_pci_address(const std::string& nvml_bus_id);

// True when `pci_address` (either spelling) names domain:bus:device (function ignored).
bool same_pci_device(const std::string& pci_address, unsigned domain, unsigned bus, unsigned device);

// A Linux CPU list ("0-3,8,10-11\n") as CPU numbers in ascending order. nullopt when
// malformed (empty items, reversed ranges, non-digits).
std::optional<std::vector<unsigned>> parse_cpulist(const std::string& text);

// Benchmark names use the harness's exact size labels: 4096 -> "4KiB", 1000 -> "1000B".
using pinbench::size_label;

inline constexpr std::size_t KiB = std::size_t{1} << 10;
inline constexpr std::size_t MiB = std::size_t{1} << 20;
inline constexpr std::size_t GiB = std::size_t{1} << 30;

}  // namespace pinbench::bench
