// NVML loaded at run time. Nothing links libnvidia-ml: every entry point is looked up by its
// exported name and is optional, so an older driver makes only the values that need a missing
// entry point read "not available". nvml.h is used for its types and constants only.
#include "pinbench/cuda/nvml.hpp"

#include <nvml.h>

#include <algorithm>
#include <cstring>
#include <initializer_list>
#include <utility>

#include "pinbench/platform/dynamic_library.hpp"

namespace pinbench {
namespace {

// Our own pointer types, with nvml.h's parameter types. We never name a function through
// nvml.h's macros (nvmlInit -> nvmlInit_v2, ...): the exported string names are looked up.
using VoidFn = nvmlReturn_t (*)();
using ErrorStringFn = const char* (*)(nvmlReturn_t);
using SystemStringFn = nvmlReturn_t (*)(char*, unsigned int);
using SystemIntFn = nvmlReturn_t (*)(int*);
using SystemUintFn = nvmlReturn_t (*)(unsigned int*);
using HandleByIndexFn = nvmlReturn_t (*)(unsigned int, nvmlDevice_t*);
using MemoryV2Fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_v2_t*);
using MemoryV1Fn = nvmlReturn_t (*)(nvmlDevice_t, nvmlMemory_t*);
// _v3 and _v2 both take an array of nvmlProcessInfo_v2_t on current drivers (see ProcessSlot).
using ProcessesFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, nvmlProcessInfo_v2_t*);
using DeviceStringFn = nvmlReturn_t (*)(nvmlDevice_t, char*, unsigned int);
using PciInfoFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlPciInfo_t*);
using ArchitectureFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlDeviceArchitecture_t*);
using DeviceUintFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*);
using EnableStateFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlEnableState_t*);
using EnableStatePairFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlEnableState_t*, nvmlEnableState_t*);
using ComputeModeFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlComputeMode_t*);
using UintPairFn = nvmlReturn_t (*)(nvmlDevice_t, unsigned int*, unsigned int*);
using DriverModelFn = nvmlReturn_t (*)(nvmlDevice_t, nvmlDriverModel_t*, nvmlDriverModel_t*);

// A resolved entry point: `name` is the export that was found, or the preferred one when none was.
template <typename Fn>
struct Entry {
    Fn fn = nullptr;
    const char* name = "";
};

template <typename Fn>
Entry<Fn> resolve(const DynamicLibrary& lib, std::initializer_list<const char*> names) {
    for (const char* n : names) {
        if (void* p = lib.symbol(n)) return {reinterpret_cast<Fn>(p), n};
    }
    return {nullptr, *names.begin()};
}

std::string missing(const char* api) { return std::string(api) + " not available in this driver"; }

// R535 drivers' nvmlDeviceGetComputeRunningProcesses_v3 wrote 32-byte entries (v2 plus
// usedGpuCcProtectedMemory); later drivers went back to 24-byte nvmlProcessInfo_v2_t and moved
// that field to nvmlDeviceGetRunningProcessDetailList. Slots are always the larger size so a
// wrong guess about the stride cannot overflow the buffer.
struct ProcessSlot {
    nvmlProcessInfo_v2_t info;
    unsigned long long used_cc_protected;
};

std::string string_from(const char* buf, std::size_t size) {
    return std::string(buf, std::find(buf, buf + size, '\0'));
}

std::string unknown(unsigned value) { return "unknown (" + std::to_string(value) + ")"; }

#if defined(NVML_DEVICE_ARCH_KEPLER) && defined(NVML_DEVICE_ARCH_HOPPER)
static_assert(NVML_DEVICE_ARCH_KEPLER == 2 && NVML_DEVICE_ARCH_HOPPER == 9);
#endif
#ifdef NVML_DEVICE_ARCH_BLACKWELL
static_assert(NVML_DEVICE_ARCH_BLACKWELL == 10);
#endif

// Integer values, so a header older than the driver still names newer chips.
std::string architecture_name(nvmlDeviceArchitecture_t arch) {
    switch (arch) {
        case 2:
            return "Kepler";
        case 3:
            return "Maxwell";
        case 4:
            return "Pascal";
        case 5:
            return "Volta";
        case 6:
            return "Turing";
        case 7:
            return "Ampere";
        case 8:
            return "Ada";
        case 9:
            return "Hopper";
        case 10:
            return "Blackwell";
        default:
            return unknown(arch);
    }
}

std::string compute_mode_name(nvmlComputeMode_t mode) {
    switch (mode) {
        case NVML_COMPUTEMODE_DEFAULT:
            return "default";
        case NVML_COMPUTEMODE_EXCLUSIVE_THREAD:
            return "exclusive_thread";
        case NVML_COMPUTEMODE_PROHIBITED:
            return "prohibited";
        case NVML_COMPUTEMODE_EXCLUSIVE_PROCESS:
            return "exclusive_process";
        default:
            return unknown(static_cast<unsigned>(mode));
    }
}

std::string driver_model_name(nvmlDriverModel_t model) {
    switch (static_cast<unsigned>(model)) {
        case 0:
            return "WDDM";  // NVML_DRIVER_WDDM
        case 1:
            return "TCC";  // NVML_DRIVER_WDM: NVML's name for TCC
        case 2:
            return "MCDM";  // NVML_DRIVER_MCDM, absent from older headers
        default:
            return unknown(static_cast<unsigned>(model));
    }
}

std::string enabled(bool on) { return on ? "enabled" : "disabled"; }

template <typename B, typename A, typename F>
Maybe<B> then(const Maybe<A>& a, F f) {
    if (!a.value) return Maybe<B>::none(a.why);
    return Maybe<B>::of(f(*a.value));
}

// Linux: the driver's soname (the unversioned link exists only with dev packages). Windows:
// newer drivers put nvml.dll in System32, older ones only in the NVSMI folder; the loader takes
// the bare name from System32 only and never looks in the current folder (dynamic_library.hpp).
std::vector<std::string> library_names() {
#ifdef _WIN32
    return {"nvml.dll", "C:\\Program Files\\NVIDIA Corporation\\NVSMI\\nvml.dll"};
#else
    return {"libnvidia-ml.so.1", "libnvidia-ml.so"};
#endif
}

}  // namespace

struct Nvml::Impl {
    std::unique_ptr<DynamicLibrary> lib;

    Entry<VoidFn> init, shutdown;
    Entry<ErrorStringFn> error_string;
    Entry<SystemStringFn> driver_version;
    Entry<SystemIntFn> cuda_driver_version;
    Entry<SystemUintFn> device_count;
    Entry<HandleByIndexFn> handle_by_index;
    Entry<MemoryV2Fn> memory_v2;
    Entry<MemoryV1Fn> memory_v1;
    Entry<ProcessesFn> processes, graphics_processes;
    std::size_t process_stride = sizeof(nvmlProcessInfo_v2_t);
    Entry<DeviceStringFn> name, uuid;
    Entry<PciInfoFn> pci_info;
    Entry<ArchitectureFn> architecture;
    Entry<DeviceUintFn> pcie_gen_current, pcie_gen_max, pcie_width_current, pcie_width_max, numa_node;
    Entry<EnableStateFn> persistence_mode, display_active;
    Entry<ComputeModeFn> compute_mode;
    Entry<EnableStatePairFn> ecc_mode;
    Entry<UintPairFn> mig_mode;
    Entry<DriverModelFn> driver_model;

    // Handles by NVML index, looked up once after nvmlInit (they stay valid until shutdown).
    std::vector<Maybe<nvmlDevice_t>> devices;

    explicit Impl(std::unique_ptr<DynamicLibrary> library) : lib(std::move(library)) {
        const DynamicLibrary& l = *lib;
        init = resolve<VoidFn>(l, {"nvmlInit_v2"});
        shutdown = resolve<VoidFn>(l, {"nvmlShutdown"});
        error_string = resolve<ErrorStringFn>(l, {"nvmlErrorString"});
        driver_version = resolve<SystemStringFn>(l, {"nvmlSystemGetDriverVersion"});
        cuda_driver_version =
            resolve<SystemIntFn>(l, {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"});
        device_count = resolve<SystemUintFn>(l, {"nvmlDeviceGetCount_v2"});
        handle_by_index = resolve<HandleByIndexFn>(l, {"nvmlDeviceGetHandleByIndex_v2"});
        memory_v2 = resolve<MemoryV2Fn>(l, {"nvmlDeviceGetMemoryInfo_v2"});
        memory_v1 = resolve<MemoryV1Fn>(l, {"nvmlDeviceGetMemoryInfo"});
        processes = resolve<ProcessesFn>(
            l, {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"});
        graphics_processes = resolve<ProcessesFn>(
            l, {"nvmlDeviceGetGraphicsRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v2"});
        // The R535 signature (see ProcessSlot): conf-compute memory query present, detail list absent.
        if (std::strcmp(processes.name, "nvmlDeviceGetComputeRunningProcesses_v3") == 0 && processes.fn &&
            l.symbol("nvmlDeviceGetConfComputeMemSizeInfo") &&
            !l.symbol("nvmlDeviceGetRunningProcessDetailList")) {
            process_stride = sizeof(ProcessSlot);
        }
        name = resolve<DeviceStringFn>(l, {"nvmlDeviceGetName"});
        uuid = resolve<DeviceStringFn>(l, {"nvmlDeviceGetUUID"});
        pci_info = resolve<PciInfoFn>(l, {"nvmlDeviceGetPciInfo_v3"});
        architecture = resolve<ArchitectureFn>(l, {"nvmlDeviceGetArchitecture"});
        pcie_gen_current = resolve<DeviceUintFn>(l, {"nvmlDeviceGetCurrPcieLinkGeneration"});
        pcie_gen_max = resolve<DeviceUintFn>(l, {"nvmlDeviceGetMaxPcieLinkGeneration"});
        pcie_width_current = resolve<DeviceUintFn>(l, {"nvmlDeviceGetCurrPcieLinkWidth"});
        pcie_width_max = resolve<DeviceUintFn>(l, {"nvmlDeviceGetMaxPcieLinkWidth"});
        // Looked up at run time whatever the header declares, so no header guard is needed.
        numa_node = resolve<DeviceUintFn>(l, {"nvmlDeviceGetNumaNodeId"});
        persistence_mode = resolve<EnableStateFn>(l, {"nvmlDeviceGetPersistenceMode"});
        display_active = resolve<EnableStateFn>(l, {"nvmlDeviceGetDisplayActive"});
        compute_mode = resolve<ComputeModeFn>(l, {"nvmlDeviceGetComputeMode"});
        ecc_mode = resolve<EnableStatePairFn>(l, {"nvmlDeviceGetEccMode"});
        mig_mode = resolve<UintPairFn>(l, {"nvmlDeviceGetMigMode"});
        driver_model = resolve<DriverModelFn>(l, {"nvmlDeviceGetDriverModel_v2", "nvmlDeviceGetDriverModel"});
    }

    std::string failed(const char* api, nvmlReturn_t rc) const {
        const char* text = error_string.fn ? error_string.fn(rc) : nullptr;
        return std::string(api) + ": " + (text ? std::string(text) : "NVML error " + std::to_string(rc));
    }

    Maybe<nvmlDevice_t> device(unsigned index) const {
        if (index >= devices.size()) {
            return Maybe<nvmlDevice_t>::none("NVML device index " + std::to_string(index) +
                                             " out of range (count " + std::to_string(devices.size()) + ")");
        }
        return devices[index];
    }

    // One out-parameter device query.
    template <typename Out, typename Fn>
    Maybe<Out> read(const Entry<Fn>& e, unsigned index) const {
        if (!e.fn) return Maybe<Out>::none(missing(e.name));
        const auto dev = device(index);
        if (!dev.value) return Maybe<Out>::none(dev.why);
        Out out{};
        const nvmlReturn_t rc = e.fn(*dev.value, &out);
        if (rc != NVML_SUCCESS) return Maybe<Out>::none(failed(e.name, rc));
        return Maybe<Out>::of(out);
    }

    // Current and pending value, as NVML returns them for modes.
    template <typename Out, typename Fn>
    Maybe<std::pair<Out, Out>> read_pair(const Entry<Fn>& e, unsigned index) const {
        using Pair = std::pair<Out, Out>;
        if (!e.fn) return Maybe<Pair>::none(missing(e.name));
        const auto dev = device(index);
        if (!dev.value) return Maybe<Pair>::none(dev.why);
        Pair out{};
        const nvmlReturn_t rc = e.fn(*dev.value, &out.first, &out.second);
        if (rc != NVML_SUCCESS) return Maybe<Pair>::none(failed(e.name, rc));
        return Maybe<Pair>::of(out);
    }

    template <std::size_t N>
    Maybe<std::string> read_string(const Entry<DeviceStringFn>& e, unsigned index) const {
        if (!e.fn) return Maybe<std::string>::none(missing(e.name));
        const auto dev = device(index);
        if (!dev.value) return Maybe<std::string>::none(dev.why);
        char buf[N] = {};
        const nvmlReturn_t rc = e.fn(*dev.value, buf, N);
        if (rc != NVML_SUCCESS) return Maybe<std::string>::none(failed(e.name, rc));
        return Maybe<std::string>::of(string_from(buf, N));
    }

    Maybe<std::pair<std::string, std::string>> driver_models(unsigned index) const {
        using Pair = std::pair<std::string, std::string>;
        if (!driver_model.fn) return Maybe<Pair>::none(missing(driver_model.name));
        const auto dev = device(index);
        if (!dev.value) return Maybe<Pair>::none(dev.why);
        nvmlDriverModel_t current{}, pending{};
        const nvmlReturn_t rc = driver_model.fn(*dev.value, &current, &pending);
        // NVML answers NOT_SUPPORTED where the platform is not Windows (and the test double
        // does on Windows too): say that NVML reports none here, not why in general.
        if (rc == NVML_ERROR_NOT_SUPPORTED) {
            return Maybe<Pair>::none(
                "NVML reports no driver model for this device (not supported: it reports WDDM, TCC or "
                "MCDM under Windows drivers only)");
        }
        if (rc != NVML_SUCCESS) return Maybe<Pair>::none(failed(driver_model.name, rc));
        return Maybe<Pair>::of({driver_model_name(current), driver_model_name(pending)});
    }
};

std::unique_ptr<Nvml> Nvml::open(std::string* why) {
    auto set_why = [why](std::string text) {
        if (why) *why = std::move(text);
    };
    const std::vector<std::string> names = library_names();
    std::string lib_why;
    auto lib = DynamicLibrary::open(names, &lib_why);
    if (!lib) {
        std::string tried;
        for (const auto& n : names) tried += (tried.empty() ? "" : ", ") + n;
        set_why("NVML library not loaded (tried " + tried + "): " + lib_why);
        return nullptr;
    }
    auto impl = std::make_unique<Impl>(std::move(lib));
    if (!impl->init.fn) {
        set_why(missing(impl->init.name) + " (" + impl->lib->loaded_name() + ")");
        return nullptr;
    }
    if (const nvmlReturn_t rc = impl->init.fn(); rc != NVML_SUCCESS) {
        set_why(impl->failed(impl->init.name, rc));
        return nullptr;
    }
    // From here on ~Nvml owns the nvmlShutdown that balances this nvmlInit.
    std::unique_ptr<Nvml> nvml(new Nvml(std::move(impl)));
    Impl& im = *nvml->impl_;
    unsigned count = 0;
    if (im.device_count.fn && im.device_count.fn(&count) != NVML_SUCCESS) count = 0;
    for (unsigned i = 0; i < count; ++i) {
        if (!im.handle_by_index.fn) {
            im.devices.push_back(Maybe<nvmlDevice_t>::none(missing(im.handle_by_index.name)));
            continue;
        }
        nvmlDevice_t dev{};
        const nvmlReturn_t rc = im.handle_by_index.fn(i, &dev);
        im.devices.push_back(rc == NVML_SUCCESS
                                 ? Maybe<nvmlDevice_t>::of(dev)
                                 : Maybe<nvmlDevice_t>::none(im.failed(im.handle_by_index.name, rc)));
    }
    return nvml;
}

Nvml::Nvml(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

const std::string& Nvml::library() const { return impl_->lib->loaded_name(); }

Nvml::~Nvml() {
    if (impl_ && impl_->shutdown.fn) impl_->shutdown.fn();
    // impl_ (and with it the library) is released after this body.
}

Maybe<std::string> Nvml::driver_version() const {
    const auto& e = impl_->driver_version;
    if (!e.fn) return Maybe<std::string>::none(missing(e.name));
    char buf[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE] = {};
    const nvmlReturn_t rc = e.fn(buf, sizeof buf);
    if (rc != NVML_SUCCESS) return Maybe<std::string>::none(impl_->failed(e.name, rc));
    return Maybe<std::string>::of(string_from(buf, sizeof buf));
}

Maybe<int> Nvml::cuda_driver_version() const {
    const auto& e = impl_->cuda_driver_version;
    if (!e.fn) return Maybe<int>::none(missing(e.name));
    int version = 0;
    const nvmlReturn_t rc = e.fn(&version);
    if (rc != NVML_SUCCESS) return Maybe<int>::none(impl_->failed(e.name, rc));
    return Maybe<int>::of(version);
}

unsigned Nvml::device_count() const { return static_cast<unsigned>(impl_->devices.size()); }

NvmlDeviceMemory Nvml::memory(unsigned index) const {
    using M = Maybe<std::uint64_t>;
    const Impl& im = *impl_;
    const auto dev = im.device(index);
    if (!dev.value) return {M::none(dev.why), M::none(dev.why), M::none(dev.why), M::none(dev.why)};

    std::string v2_why = missing(im.memory_v2.name);
    if (im.memory_v2.fn) {
        nvmlMemory_v2_t m{};
        m.version = nvmlMemory_v2;
        const nvmlReturn_t rc = im.memory_v2.fn(*dev.value, &m);
        if (rc == NVML_SUCCESS) return {M::of(m.total), M::of(m.used), M::of(m.free), M::of(m.reserved)};
        v2_why = im.failed(im.memory_v2.name, rc);
    }
    // v1 has no reserved field, and its `used` includes what v2 reports as reserved.
    if (!im.memory_v1.fn) {
        const std::string why = missing(im.memory_v1.name);
        return {M::none(why), M::none(why), M::none(why), M::none(v2_why)};
    }
    nvmlMemory_t m{};
    const nvmlReturn_t rc = im.memory_v1.fn(*dev.value, &m);
    if (rc != NVML_SUCCESS) {
        const std::string why = im.failed(im.memory_v1.name, rc);
        return {M::none(why), M::none(why), M::none(why), M::none(v2_why)};
    }
    return {M::of(m.total), M::of(m.used), M::of(m.free), M::none(v2_why)};
}

namespace {

// Compute or graphics processes of one device (the two NVML calls share a signature).
Maybe<std::vector<NvmlProcess>> running_processes(const Nvml::Impl& im, const Entry<ProcessesFn>& e,
                                                  unsigned index) {
    using Result = Maybe<std::vector<NvmlProcess>>;
    if (!e.fn) return Result::none(missing(e.name));
    const auto dev = im.device(index);
    if (!dev.value) return Result::none(dev.why);

    // Size, then fill; processes can start in between, so retry with headroom.
    std::vector<ProcessSlot> slots;
    unsigned count = 0;
    nvmlReturn_t rc = e.fn(*dev.value, &count, nullptr);
    for (int attempt = 0; rc == NVML_ERROR_INSUFFICIENT_SIZE && attempt < 4; ++attempt) {
        slots.assign(static_cast<std::size_t>(count) * 2 + 8, ProcessSlot{});
        count = static_cast<unsigned>(slots.size());
        rc = e.fn(*dev.value, &count, reinterpret_cast<nvmlProcessInfo_v2_t*>(slots.data()));
    }
    if (rc != NVML_SUCCESS) return Result::none(im.failed(e.name, rc));

    std::vector<NvmlProcess> out;
    const auto* bytes = reinterpret_cast<const unsigned char*>(slots.data());
    const std::size_t n = std::min<std::size_t>(count, slots.size());  // 0 when the sizing call succeeded
    for (std::size_t i = 0; i < n; ++i) {
        nvmlProcessInfo_v2_t info{};
        std::memcpy(&info, bytes + i * im.process_stride, sizeof info);
        NvmlProcess p;
        p.pid = info.pid;
        // NVML_VALUE_NOT_AVAILABLE is (-1); the field is unsigned long long.
        if (info.usedGpuMemory == static_cast<unsigned long long>(NVML_VALUE_NOT_AVAILABLE)) {
            p.used = Maybe<std::uint64_t>::none("per-process memory not available (WDDM)");
        } else {
            p.used = Maybe<std::uint64_t>::of(info.usedGpuMemory);
        }
        out.push_back(std::move(p));
    }
    return Result::of(std::move(out));
}

}  // namespace

Maybe<std::vector<NvmlProcess>> Nvml::compute_processes(unsigned index) const {
    return running_processes(*impl_, impl_->processes, index);
}

Maybe<std::vector<NvmlProcess>> Nvml::graphics_processes(unsigned index) const {
    return running_processes(*impl_, impl_->graphics_processes, index);
}

Maybe<std::string> Nvml::name(unsigned index) const {
    return impl_->read_string<NVML_DEVICE_NAME_V2_BUFFER_SIZE>(impl_->name, index);
}

Maybe<std::string> Nvml::uuid(unsigned index) const {
    return impl_->read_string<NVML_DEVICE_UUID_V2_BUFFER_SIZE>(impl_->uuid, index);
}

Maybe<std::string> Nvml::pci_bus_id(unsigned index) const {
    return then<std::string>(impl_->read<nvmlPciInfo_t>(impl_->pci_info, index),
                             [](const nvmlPciInfo_t& p) { return string_from(p.busId, sizeof p.busId); });
}

Maybe<std::string> Nvml::architecture(unsigned index) const {
    return then<std::string>(impl_->read<nvmlDeviceArchitecture_t>(impl_->architecture, index),
                             architecture_name);
}

NvmlPcie Nvml::pcie(unsigned index) const {
    const Impl& im = *impl_;
    return {im.read<unsigned>(im.pcie_gen_current, index), im.read<unsigned>(im.pcie_gen_max, index),
            im.read<unsigned>(im.pcie_width_current, index), im.read<unsigned>(im.pcie_width_max, index)};
}

Maybe<int> Nvml::numa_node(unsigned index) const {
    return then<int>(impl_->read<unsigned>(impl_->numa_node, index),
                     [](unsigned node) { return static_cast<int>(node); });
}

Maybe<std::string> Nvml::persistence_mode(unsigned index) const {
    return then<std::string>(impl_->read<nvmlEnableState_t>(impl_->persistence_mode, index),
                             [](nvmlEnableState_t s) { return enabled(s == NVML_FEATURE_ENABLED); });
}

Maybe<std::string> Nvml::compute_mode(unsigned index) const {
    return then<std::string>(impl_->read<nvmlComputeMode_t>(impl_->compute_mode, index), compute_mode_name);
}

Maybe<bool> Nvml::display_active(unsigned index) const {
    return then<bool>(impl_->read<nvmlEnableState_t>(impl_->display_active, index),
                      [](nvmlEnableState_t s) { return s == NVML_FEATURE_ENABLED; });
}

Maybe<std::string> Nvml::ecc_mode(unsigned index) const {
    return then<std::string>(impl_->read_pair<nvmlEnableState_t>(impl_->ecc_mode, index),
                             [](const auto& p) { return enabled(p.first == NVML_FEATURE_ENABLED); });
}

Maybe<std::string> Nvml::mig_mode(unsigned index) const {
    return then<std::string>(impl_->read_pair<unsigned>(impl_->mig_mode, index),
                             [](const auto& p) { return enabled(p.first == NVML_DEVICE_MIG_ENABLE); });
}

Maybe<std::string> Nvml::driver_model_current(unsigned index) const {
    return then<std::string>(impl_->driver_models(index), [](const auto& p) { return p.first; });
}

Maybe<std::string> Nvml::driver_model_pending(unsigned index) const {
    return then<std::string>(impl_->driver_models(index), [](const auto& p) { return p.second; });
}

NvmlDeviceFacts nvml_device_facts(const Nvml& nvml, unsigned index) {
    const NvmlPcie pcie = nvml.pcie(index);
    NvmlDeviceFacts f;
    f.nvml_index = index;
    f.name = nvml.name(index);
    f.uuid = nvml.uuid(index);
    f.pci_bus_id = nvml.pci_bus_id(index);
    f.architecture = nvml.architecture(index);
    f.pcie_gen_current = pcie.gen_current;
    f.pcie_gen_max = pcie.gen_max;
    f.pcie_width_current = pcie.width_current;
    f.pcie_width_max = pcie.width_max;
    f.numa_node = nvml.numa_node(index);
    f.persistence_mode = nvml.persistence_mode(index);
    f.compute_mode = nvml.compute_mode(index);
    f.display_active = nvml.display_active(index);
    f.ecc = nvml.ecc_mode(index);
    f.mig = nvml.mig_mode(index);
    f.driver_model_current = nvml.driver_model_current(index);
    f.driver_model_pending = nvml.driver_model_pending(index);
    f.memory_total = nvml.memory(index).total;
    return f;
}

}  // namespace pinbench
