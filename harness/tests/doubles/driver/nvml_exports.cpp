// The NVML entry points the harness reads (harness/src/cuda/nvml.cpp), with nvml.h's signatures.
// Used memory and the process list come from the device state the CUDA side charges, so NVML
// agrees with what every process of the test allocated, as on a real driver.
#define NVML_NO_UNVERSIONED_FUNC_DEFS  // declare the legacy names too, so they are checked
#include <nvml.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>

#include "device_state.hpp"
#include "identity.hpp"
#include "script.hpp"

namespace {

using pinbench::driver_double::DeviceState;
using pinbench::driver_double::Script;

// NVML's side of the double in this process (made on first use, like a loaded driver).
struct Nvml {
    Nvml() : script(pinbench::driver_double::load_script()), state(script) {}
    Script script;
    DeviceState state;
    int initialized = 0;
};

Nvml& nvml() {
    static Nvml instance;
    return instance;
}

// Handles are opaque to the caller: index + 1, so none is null.
nvmlDevice_t handle_of(unsigned index) {
    return reinterpret_cast<nvmlDevice_t>(std::uintptr_t{index} + 1);  // NOLINT(performance-no-int-to-ptr)
}

// The device index of a handle, or -1.
int index_of(nvmlDevice_t device) {
    const auto i = static_cast<long long>(reinterpret_cast<std::uintptr_t>(device)) - 1;
    return i >= 0 && i < nvml().script.devices ? static_cast<int>(i) : -1;
}

// NVML_SUCCESS with the device's index in *index, or why not.
nvmlReturn_t device_index(nvmlDevice_t device, int* index) {
    if (nvml().initialized == 0) return NVML_ERROR_UNINITIALIZED;
    *index = index_of(device);
    return *index < 0 ? NVML_ERROR_INVALID_ARGUMENT : NVML_SUCCESS;
}

nvmlReturn_t copy_string(const std::string& text, char* out, unsigned length) {
    if (out == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (text.size() + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
    std::memcpy(out, text.c_str(), text.size() + 1);
    return NVML_SUCCESS;
}

// Used bytes as NVML reports them: scripted blind, the driver's reserve only.
std::uint64_t used_bytes(int device) {
    Nvml& n = nvml();
    return n.script.blind.count("nvml") != 0 ? n.script.reserved_memory : n.state.used(device);
}

template <class Info>
nvmlReturn_t running_processes(nvmlDevice_t device, unsigned* count, Info* infos) {
    int index = 0;
    if (const nvmlReturn_t r = device_index(device, &index); r != NVML_SUCCESS) return r;
    if (count == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    Nvml& n = nvml();
    const auto processes = n.state.processes(index);
    const unsigned capacity = *count;
    *count = static_cast<unsigned>(processes.size());
    if (processes.size() > capacity || (infos == nullptr && !processes.empty())) {
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    for (std::size_t i = 0; i < processes.size(); ++i) {
        Info info{};
        info.pid = static_cast<unsigned>(processes[i].pid);
        const bool hidden = n.script.nvml_process_memory_not_available || n.script.blind.count("nvml") != 0;
        // Blind: the process shows, its memory does not move.
        info.usedGpuMemory = n.script.nvml_process_memory_not_available ? NVML_VALUE_NOT_AVAILABLE
                             : hidden                                   ? 0
                                                                        : processes[i].bytes;
        if constexpr (sizeof(Info) > sizeof(nvmlProcessInfo_v1_t)) {
            info.gpuInstanceId = 0xFFFFFFFF;
            info.computeInstanceId = 0xFFFFFFFF;
        }
        infos[i] = info;
    }
    return NVML_SUCCESS;
}

}  // namespace

extern "C" {

nvmlReturn_t DECLDIR nvmlInit_v2(void) {
    ++nvml().initialized;
    return NVML_SUCCESS;
}

nvmlReturn_t DECLDIR nvmlInit(void) { return nvmlInit_v2(); }

nvmlReturn_t DECLDIR nvmlShutdown(void) {
    if (nvml().initialized == 0) return NVML_ERROR_UNINITIALIZED;
    --nvml().initialized;
    return NVML_SUCCESS;
}

const DECLDIR char* nvmlErrorString(nvmlReturn_t result) {
    switch (result) {
        case NVML_SUCCESS:
            return "Success";
        case NVML_ERROR_UNINITIALIZED:
            return "Uninitialized";
        case NVML_ERROR_INVALID_ARGUMENT:
            return "Invalid Argument";
        case NVML_ERROR_NOT_SUPPORTED:
            return "Not Supported";
        case NVML_ERROR_INSUFFICIENT_SIZE:
            return "Insufficient Size";
        default:
            return "Unknown Error";
    }
}

nvmlReturn_t DECLDIR nvmlSystemGetDriverVersion(char* version, unsigned int length) {
    if (nvml().initialized == 0) return NVML_ERROR_UNINITIALIZED;
    return copy_string(pinbench::driver_double::driver_release(), version, length);
}

nvmlReturn_t DECLDIR nvmlSystemGetCudaDriverVersion(int* cudaDriverVersion) {
    if (cudaDriverVersion == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    *cudaDriverVersion = nvml().script.cuda_driver_version;
    return NVML_SUCCESS;
}

nvmlReturn_t DECLDIR nvmlSystemGetCudaDriverVersion_v2(int* cudaDriverVersion) {
    return nvmlSystemGetCudaDriverVersion(cudaDriverVersion);
}

nvmlReturn_t DECLDIR nvmlDeviceGetCount_v2(unsigned int* deviceCount) {
    if (nvml().initialized == 0) return NVML_ERROR_UNINITIALIZED;
    if (deviceCount == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    *deviceCount = static_cast<unsigned>(nvml().script.devices);
    return NVML_SUCCESS;
}

nvmlReturn_t DECLDIR nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t* device) {
    if (nvml().initialized == 0) return NVML_ERROR_UNINITIALIZED;
    if (device == nullptr || index >= static_cast<unsigned>(nvml().script.devices)) {
        return NVML_ERROR_INVALID_ARGUMENT;
    }
    *device = handle_of(index);
    return NVML_SUCCESS;
}

nvmlReturn_t DECLDIR nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t* memory) {
    int index = 0;
    if (const nvmlReturn_t r = device_index(device, &index); r != NVML_SUCCESS) return r;
    if (memory == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    const std::uint64_t total = nvml().script.total_memory;
    memory->total = total;
    memory->used = std::min(used_bytes(index), total);
    memory->free = total - memory->used;
    return NVML_SUCCESS;
}

nvmlReturn_t DECLDIR nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t* memory) {
    int index = 0;
    if (const nvmlReturn_t r = device_index(device, &index); r != NVML_SUCCESS) return r;
    if (memory == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    if (memory->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    const std::uint64_t total = nvml().script.total_memory;
    memory->total = total;
    memory->reserved = nvml().script.reserved_memory;
    // v2 counts the driver's reserve apart from what processes use.
    const std::uint64_t all_used = std::min<std::uint64_t>(used_bytes(index), total);
    memory->used = all_used - std::min<std::uint64_t>(memory->reserved, all_used);
    memory->free = total - all_used;
    return NVML_SUCCESS;
}

nvmlReturn_t DECLDIR nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int* infoCount,
                                                             nvmlProcessInfo_t* infos) {
    return running_processes(device, infoCount, infos);
}

nvmlReturn_t DECLDIR nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int* infoCount,
                                                             nvmlProcessInfo_v2_t* infos) {
    return running_processes(device, infoCount, infos);
}

// The double runs no graphics work.
nvmlReturn_t DECLDIR nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int* infoCount,
                                                              nvmlProcessInfo_t* infos) {
    (void)infos;
    int index = 0;
    if (const nvmlReturn_t r = device_index(device, &index); r != NVML_SUCCESS) return r;
    if (infoCount == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    *infoCount = 0;
    return NVML_SUCCESS;
}

// Exported, as by the drivers after R535, so the harness reads 24-byte process entries.
nvmlReturn_t DECLDIR nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t device,
                                                           nvmlProcessDetailList_t* plist) {
    (void)device;
    (void)plist;
    return NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t DECLDIR nvmlDeviceGetName(nvmlDevice_t device, char* name, unsigned int length) {
    int index = 0;
    if (const nvmlReturn_t r = device_index(device, &index); r != NVML_SUCCESS) return r;
    return copy_string(pinbench::driver_double::device_name(), name, length);
}

nvmlReturn_t DECLDIR nvmlDeviceGetUUID(nvmlDevice_t device, char* uuid, unsigned int length) {
    int index = 0;
    if (const nvmlReturn_t r = device_index(device, &index); r != NVML_SUCCESS) return r;
    return copy_string(pinbench::driver_double::device_uuid_text(index), uuid, length);
}

nvmlReturn_t DECLDIR nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t* pci) {
    int index = 0;
    if (const nvmlReturn_t r = device_index(device, &index); r != NVML_SUCCESS) return r;
    if (pci == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    *pci = nvmlPciInfo_t{};
    std::snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%s",
                  pinbench::driver_double::pci_bus_id(index, 4).c_str());
    std::snprintf(pci->busId, sizeof pci->busId, "%s", pinbench::driver_double::pci_bus_id(index, 8).c_str());
    pci->bus = pinbench::driver_double::pci_bus(index);
    return NVML_SUCCESS;
}

// What the double is not: no architecture, no link, no NUMA node, no ECC or MIG, no driver model
// outside Windows. A driver answers NOT_SUPPORTED for what a device lacks; so does the double.
nvmlReturn_t DECLDIR nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t* arch) {
    int index = 0;
    if (const nvmlReturn_t r = device_index(device, &index); r != NVML_SUCCESS) return r;
    if (arch == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    *arch = NVML_DEVICE_ARCH_UNKNOWN;
    return NVML_SUCCESS;
}

#define PINBENCH_DOUBLE_NOT_SUPPORTED(name, ...)                  \
    nvmlReturn_t DECLDIR name(nvmlDevice_t device, __VA_ARGS__) { \
        int index = 0;                                            \
        const nvmlReturn_t r = device_index(device, &index);      \
        return r != NVML_SUCCESS ? r : NVML_ERROR_NOT_SUPPORTED;  \
    }
PINBENCH_DOUBLE_NOT_SUPPORTED(nvmlDeviceGetCurrPcieLinkGeneration, unsigned int*)
PINBENCH_DOUBLE_NOT_SUPPORTED(nvmlDeviceGetMaxPcieLinkGeneration, unsigned int*)
PINBENCH_DOUBLE_NOT_SUPPORTED(nvmlDeviceGetCurrPcieLinkWidth, unsigned int*)
PINBENCH_DOUBLE_NOT_SUPPORTED(nvmlDeviceGetMaxPcieLinkWidth, unsigned int*)
PINBENCH_DOUBLE_NOT_SUPPORTED(nvmlDeviceGetNumaNodeId, unsigned int*)
PINBENCH_DOUBLE_NOT_SUPPORTED(nvmlDeviceGetEccMode, nvmlEnableState_t*, nvmlEnableState_t*)
PINBENCH_DOUBLE_NOT_SUPPORTED(nvmlDeviceGetMigMode, unsigned int*, unsigned int*)
PINBENCH_DOUBLE_NOT_SUPPORTED(nvmlDeviceGetDriverModel_v2, nvmlDriverModel_t*, nvmlDriverModel_t*)
PINBENCH_DOUBLE_NOT_SUPPORTED(nvmlDeviceGetDriverModel, nvmlDriverModel_t*, nvmlDriverModel_t*)
#undef PINBENCH_DOUBLE_NOT_SUPPORTED

nvmlReturn_t DECLDIR nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t* mode) {
    int index = 0;
    if (const nvmlReturn_t r = device_index(device, &index); r != NVML_SUCCESS) return r;
    if (mode == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    *mode = NVML_FEATURE_DISABLED;
    return NVML_SUCCESS;
}

nvmlReturn_t DECLDIR nvmlDeviceGetDisplayActive(nvmlDevice_t device, nvmlEnableState_t* isActive) {
    return nvmlDeviceGetPersistenceMode(device, isActive);
}

nvmlReturn_t DECLDIR nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t* mode) {
    int index = 0;
    if (const nvmlReturn_t r = device_index(device, &index); r != NVML_SUCCESS) return r;
    if (mode == nullptr) return NVML_ERROR_INVALID_ARGUMENT;
    *mode = NVML_COMPUTEMODE_DEFAULT;
    return NVML_SUCCESS;
}

}  // extern "C"
