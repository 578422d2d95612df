// Which NVML device is which CUDA device. CUDA numbers only the devices CUDA_VISIBLE_DEVICES
// lets it see (in PCI order under CUDA_DEVICE_ORDER=PCI_BUS_ID); NVML numbers every device of
// the machine. Position says nothing once a runner hands out one GPU by UUID, so devices are
// matched by UUID, and by PCI bus id where a UUID is missing. Host code, CPU-tested.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench {

struct DeviceIdentity {
    std::string uuid;        // "GPU-53b1d48b-..." as CUDA and NVML both spell it; empty if unknown
    std::string pci_bus_id;  // any of "0000:00:06.0", "00000000:00:06.0"; empty if unknown
};

// "domain:bus:device.function" in one spelling (4-digit domain, lowercase hex), or "" when the
// text is not a PCI bus id.
std::string normalized_pci_bus_id(std::string_view text);

// For each CUDA device, the index of the same GPU in `nvml`, or nullopt when none matches.
std::vector<std::optional<unsigned>> map_cuda_to_nvml(const std::vector<DeviceIdentity>& cuda,
                                                      const std::vector<DeviceIdentity>& nvml);

}  // namespace pinbench
