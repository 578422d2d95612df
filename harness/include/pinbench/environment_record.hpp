// The environment record: everything that could explain a difference between two runs.
//
// Its one home. The sources fill typed facts: the OS (os_facts(), platform_probes.hpp), CUDA
// (cuda_facts() and cuda_device_facts(), device.hpp) and NVML (nvml_device_facts(), nvml.hpp);
// run/environment.cpp gathers them into an EnvironmentRecord. Only environment_record.cpp names
// the record's keys, both when it writes a record and when it reads a fact back from a results
// file's record. The reads are for the store key, the doctor, the device watch and replay.
// CTest EnvironmentRecordFixture writes records and what these readers get from them into
// reports/tests/written_by_cpp/environment_records.json, and pinreport's readers are checked
// against that file. Anything unreadable is written as {"unavailable": "reason"}.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pinbench/maybe.hpp"

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

// The driver model recorded for every device of a WSL2 run: the Windows WDDM driver, reached
// through the paravirtualized /dev/dxg. Its store slug ("wddm-wsl2") keeps WSL2 apart from
// native Windows ("wddm") and Linux ("linux"); pinreport reads it from the committed fixture.
inline constexpr const char* kWsl2DriverModel = "WDDM (WSL2)";
// The model a scenario's driver_models (and pinreport's expect entries) name: "WDDM" for WSL2,
// the model itself otherwise (pinreport: environment.model_family).
std::string driver_model_family(const std::string& model);

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

struct DeviceRecord {
    CudaDeviceFacts cuda;
    std::optional<unsigned> nvml_index;  // matched by UUID: indices differ under CUDA_VISIBLE_DEVICES
    Maybe<NvmlDeviceFacts> nvml;
};

// Another process with a context on a described device (its allocations move device probes).
struct OtherComputeProcess {
    int device = 0;  // CUDA index
    std::uint32_t pid = 0;
    Maybe<std::uint64_t> used;
};

struct EnvironmentRecord {
    OsFacts os;
    CudaFacts cuda;
    Maybe<std::string> driver_release;  // nvmlSystemGetDriverVersion, e.g. "580.159.04"
    Maybe<std::string> cuda_device_order, cuda_visible_devices;
    std::string nvml_why;  // empty: NVML is available
    int cuda_device_count = 0;
    std::string cuda_device_count_why;  // when there is none
    Maybe<unsigned> nvml_device_count;
    std::vector<DeviceRecord> devices;  // the described ones, by CUDA index
    std::vector<OtherComputeProcess> other_compute_processes;
};

// --- writing ----------------------------------------------------------------------------------
nlohmann::json environment_json(const EnvironmentRecord& record);
// Parts the benchmark programs record on their own (benchmarks/context.cpp).
nlohmann::json cuda_environment_json(const CudaFacts& cuda, const CudaDeviceFacts* device);
nlohmann::json nvml_device_json(const NvmlDeviceFacts& nvml);
// A replayed copy of a record (docs/replay.md): marked replayed, relabelled to a script's driver
// release and every device's model where it gives them.
nlohmann::json replayed_environment(nlohmann::json environment,
                                    const std::optional<std::string>& driver_release,
                                    const std::optional<std::string>& driver_model);
// `pinbench run --allow-busy-gpu` found these earlier pinbench processes on the GPU.
void note_busy_gpu_allowed(nlohmann::json& environment, const std::string& leftovers);

// --- reading a written record (results files of any version; a missing fact reads empty) -------
std::string platform_of(const nlohmann::json& environment);        // "" when unknown
std::string driver_release_of(const nlohmann::json& environment);  // "" when unavailable
std::optional<std::int64_t> cuda_device_count_of(const nlohmann::json& environment);
std::size_t described_device_count(const nlohmann::json& environment);
// Per described device `index`: "" when the record does not have it.
std::string device_name_of(const nlohmann::json& environment, std::size_t index);
std::string device_luid_of(const nlohmann::json& environment, std::size_t index);
// "WDDM", "TCC", "MCDM", "linux", or "unknown".
std::string driver_model_of(const nlohmann::json& environment, std::size_t index = 0);
// The test-double driver (pinbench/test_double.hpp) wrote this record: its driver release or a
// device name carries the marker. Such results are never a baseline.
bool produced_by_test_double(const nlohmann::json& environment);
// The device's NVML index; older records (before results schema 3) only have nvml.nvml_index.
std::optional<unsigned> nvml_index_of(const nlohmann::json& environment, std::size_t index);
// 1 or 2 under WSL, nullopt elsewhere and in records from before WSL was detected.
std::optional<int> wsl_version_of(const nlohmann::json& environment);
std::string cuda_device_count_why_of(const nlohmann::json& environment);  // "" when not given

// What must not differ between the part of a run and its --resume: (name, value) of the
// platform, driver release, device count, first device's name and driver model.
std::vector<std::pair<std::string, std::string>> machine_identity_of(const nlohmann::json& environment);
// The lines `pinbench doctor` shows: (label, text); an unavailable fact reads "not available (why)".
std::vector<std::pair<std::string, std::string>> environment_summary(const nlohmann::json& environment);

}  // namespace pinbench
