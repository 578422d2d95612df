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

#include "pinbench/probes/environment_facts.hpp"
#include "pinbench/vocabulary/maybe.hpp"

namespace pinbench {

// The driver model recorded for every device of a WSL2 run: the Windows WDDM driver, reached
// through the paravirtualized /dev/dxg. Its store slug ("wddm-wsl2") keeps WSL2 apart from
// native Windows ("wddm") and Linux ("linux"); pinreport reads it from the committed fixture.
inline constexpr const char* kWsl2DriverModel = "WDDM (WSL2)";
// The model a scenario's driver_models (and pinreport's expect entries) name: "WDDM" for WSL2,
// the model itself otherwise (pinreport: environment.model_family).
std::string driver_model_family(const std::string& model);

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
// Whether `pinbench run` kept the CUDA driver initialised beside its children (a holder
// process), and why (not); where the hold applies, the runs measured without it.
void note_parent_driver(nlohmann::json& environment, bool held, const std::string& why,
                        const std::optional<std::vector<std::string>>& released_for);

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
// The test-double driver (pinbench/vocabulary/test_double.hpp) wrote this record: its driver release or a
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
