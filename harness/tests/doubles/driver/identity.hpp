// What the double says it is, the same through CUDA and NVML (the harness matches their devices
// by UUID and PCI bus id). Its name and release carry pinbench's test-double marker.
#pragma once

#include <array>
#include <cstdint>
#include <cstdio>
#include <string>

#include "pinbench/vocabulary/test_double.hpp"

namespace pinbench::driver_double {

inline std::string device_name() { return std::string("pinbench ") + test_double_marker + " GPU"; }
// No real release: "0.0" sorts before every driver, the marker says what it is.
inline std::string driver_release() { return std::string("0.0-") + test_double_marker; }

inline std::array<unsigned char, 16> device_uuid(int device) {
    std::array<unsigned char, 16> bytes{'p', 'i', 'n', 'b', 'e', 'n', 'c', 'h',
                                        'd', 'o', 'u', 'b', 'l', 'e', 0,   0};
    bytes[15] = static_cast<unsigned char>(device);
    return bytes;
}

// NVML's form: GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx.
inline std::string device_uuid_text(int device) {
    const auto b = device_uuid(device);
    std::string hex;
    char buf[3];
    for (unsigned char c : b) {
        std::snprintf(buf, sizeof buf, "%02x", c);
        hex += buf;
    }
    return "GPU-" + hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
           hex.substr(16, 4) + "-" + hex.substr(20);
}

inline unsigned pci_bus(int device) { return 0x10u + static_cast<unsigned>(device); }

// domain_digits 4: CUDA's and NVML's legacy form; 8: NVML's busId.
inline std::string pci_bus_id(int device, int domain_digits) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%0*x:%02x:00.0", domain_digits, 0u, pci_bus(device));
    return buf;
}

}  // namespace pinbench::driver_double
