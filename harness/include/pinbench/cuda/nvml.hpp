// NVML, loaded at run time (dlopen / LoadLibrary): an entry point missing on an older driver
// reads "not available" instead of stopping the program. NVML never creates a CUDA context,
// so the parent process of a run can observe devices through it.
#pragma once

#include <cstdint>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

#include "pinbench/probes/environment_facts.hpp"
#include "pinbench/probes/probe.hpp"
#include "pinbench/vocabulary/maybe.hpp"

namespace pinbench {

struct NvmlDeviceMemory {
    Maybe<std::uint64_t> total, used, free, reserved;  // reserved via nvmlDeviceGetMemoryInfo_v2
};

struct NvmlProcess {
    std::uint32_t pid = 0;
    Maybe<std::uint64_t> used;  // "not available" under WDDM
};

struct NvmlPcie {
    Maybe<unsigned> gen_current, gen_max, width_current, width_max;
};

class Nvml {
public:
    // Loads the library and calls nvmlInit_v2. Returns nullptr with *why set when NVML is
    // missing or fails to initialise (no driver, no GPU).
    static std::unique_ptr<Nvml> open(std::string* why);
    ~Nvml();  // nvmlShutdown, then unloads the library
    Nvml(const Nvml&) = delete;
    Nvml& operator=(const Nvml&) = delete;

    // The library loaded (Windows: its file, System32's nvml.dll or the NVSMI folder's).
    const std::string& library() const;
    Maybe<std::string> driver_version() const;  // nvmlSystemGetDriverVersion, e.g. "580.159.04"
    Maybe<int> cuda_driver_version() const;     // nvmlSystemGetCudaDriverVersion_v2, e.g. 13000
    unsigned device_count() const;              // 0 when unavailable

    // Per device, by NVML index. CUDA indices differ from these whenever CUDA_VISIBLE_DEVICES
    // is set: map them by UUID (pinbench/probes/device_map.hpp), never by position.
    NvmlDeviceMemory memory(unsigned index) const;
    Maybe<std::vector<NvmlProcess>> compute_processes(unsigned index) const;
    Maybe<std::vector<NvmlProcess>> graphics_processes(unsigned index) const;  // display/D3D/GL clients
    Maybe<std::string> name(unsigned index) const;
    Maybe<std::string> uuid(unsigned index) const;
    Maybe<std::string> pci_bus_id(unsigned index) const;
    Maybe<std::string> architecture(unsigned index) const;  // "Hopper" ...
    NvmlPcie pcie(unsigned index) const;
    Maybe<int> numa_node(unsigned index) const;
    Maybe<std::string> persistence_mode(unsigned index) const;  // "enabled" / "disabled"
    Maybe<std::string> compute_mode(unsigned index) const;      // "default", "exclusive_process", ...
    Maybe<bool> display_active(unsigned index) const;
    Maybe<std::string> ecc_mode(unsigned index) const;  // "enabled" / "disabled"
    Maybe<std::string> mig_mode(unsigned index) const;
    // "WDDM", "TCC", "MCDM" on Windows (current and pending); "not available" elsewhere.
    Maybe<std::string> driver_model_current(unsigned index) const;
    Maybe<std::string> driver_model_pending(unsigned index) const;

    struct Impl;

private:
    explicit Nvml(std::unique_ptr<Impl> impl);
    std::unique_ptr<Impl> impl_;
};

// The NVML facts of a device for the environment record (pinbench/probes/environment_facts.hpp):
// each value, or why it cannot be read.
NvmlDeviceFacts nvml_device_facts(const Nvml& nvml, unsigned index);

// Probe over NVML for the given device indices; keys nvml.<i>.used, nvml.<i>.reserved,
// nvml.<i>.total, nvml.<i>.free, and nvml.<i>.process_used for `pid` (0: no per-process key).
std::unique_ptr<Probe> make_nvml_probe(const Nvml& nvml, std::vector<unsigned> devices, std::uint32_t pid);

}  // namespace pinbench
