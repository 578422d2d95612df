// The typed facts of the environment record (pinbench/results/environment_record.hpp): what the OS
// probes (platform_probes.hpp, probes/wsl.cpp), the CUDA runtime (device.hpp) and NVML
// (nvml.hpp) say about this machine. Plain data: only environment_record.cpp names their keys.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "pinbench/vocabulary/maybe.hpp"

namespace pinbench {

struct OsFacts {
    std::string platform;  // "linux", "posix" or "windows"
    Maybe<std::string> os_name, os_build, hostname;
    std::optional<Maybe<std::string>> kernel;  // POSIX: uname's release
    Maybe<std::uint64_t> host_ram_bytes;       // when read: a VM's may grow while the suite runs
    Maybe<std::uint64_t> cpu_count;
    struct Windows {
        Maybe<std::string> os_edition;
        Maybe<std::string> hardware_accelerated_gpu_scheduling;  // "on", "off", "default/unknown"
        Maybe<std::uint32_t> session_id;                         // 0: a runner installed as a service
        Maybe<std::string> sysmem_fallback_policy;
    };
    std::optional<Windows> windows;
    // Windows Subsystem for Linux, from the kernel's own signals (wsl_facts(): probes/wsl.cpp).
    // Under WSL2 CUDA and NVML reach the Windows WDDM driver through /dev/dxg: the driver model
    // of its devices is kWsl2DriverModel.
    struct Wsl {
        int version = 2;                   // 1 or 2
        std::vector<std::string> signals;  // what said so: "kernel release ...", "/dev/dxg", ...
        Maybe<std::string> windows_build;  // WSL1's kernel release carries it; WSL2's does not
    };
    std::optional<Wsl> wsl;
};

// What the kernel says about WSL, as read from the files it is read from (tests pass strings).
struct WslSignals {
    std::string kernel_release;  // uname -r, /proc/sys/kernel/osrelease
    std::string proc_version;    // /proc/version
    bool dev_dxg = false;        // /dev/dxg exists: the paravirtualized GPU of WSL2
    bool usr_lib_wsl = false;    // /usr/lib/wsl exists: the Windows driver's libcuda and NVML
};
// WSL facts from the signals, or nullopt when nothing says WSL. Pure (probes/wsl.cpp).
std::optional<OsFacts::Wsl> wsl_facts(const WslSignals& signals);

// The CUDA runtime and driver (cuda/cuda_environment.cpp).
struct CudaFacts {
    Maybe<int> driver_version;          // the CUDA version the driver supports (13000), not its release
    Maybe<int> runtime_version;         // cudaRuntimeGetVersion
    Maybe<int> runtime_built;           // CUDART_VERSION of this build
    Maybe<std::string> module_loading;  // CUDA_MODULE_LOADING
};

struct CudaDeviceProperties {  // from cudaGetDeviceProperties
    std::string name, uuid;
    std::uint64_t total_global_mem = 0;
    Maybe<std::string> luid;                        // hex, Windows only
    std::optional<unsigned> luid_device_node_mask;  // Windows
};

// One device as CUDA sees it: attributes rather than cudaDeviceProp fields where possible.
struct CudaDeviceFacts {
    int cuda_index = 0;
    Maybe<CudaDeviceProperties> properties;
    Maybe<std::string> compute_capability;  // "9.0"
    Maybe<int> tcc_driver, unified_addressing, can_map_host_memory, integrated, pageable_memory_access,
        host_register_supported, async_engine_count, pci_domain_id, pci_bus_id, pci_device_id, numa_id;
    Maybe<std::uint64_t> stack_limit_bytes;
};

// One device as NVML sees it (cuda/nvml.cpp).
struct NvmlDeviceFacts {
    unsigned nvml_index = 0;
    Maybe<std::string> name, uuid, pci_bus_id, architecture;
    Maybe<unsigned> pcie_gen_current, pcie_gen_max, pcie_width_current, pcie_width_max;
    Maybe<int> numa_node;
    Maybe<std::string> persistence_mode, compute_mode;
    Maybe<bool> display_active;
    Maybe<std::string> ecc, mig;
    Maybe<std::string> driver_model_current, driver_model_pending;  // "WDDM", "TCC", "MCDM" (Windows)
    Maybe<std::uint64_t> memory_total;
};

}  // namespace pinbench
