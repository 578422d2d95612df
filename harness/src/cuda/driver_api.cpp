#include "cuda/driver_api.hpp"

#include <mutex>

#include "pinbench/platform/dynamic_library.hpp"

namespace pinbench::cuda {

DriverApi::DriverApi(std::unique_ptr<DynamicLibrary> library) : library_(std::move(library)) {}

DriverApi::~DriverApi() = default;

std::unique_ptr<DriverApi> DriverApi::load(std::string* why) {
    std::string failure;
    auto library = DynamicLibrary::open_system(kDriverLibrary, &failure);
    if (library == nullptr) {
        if (why != nullptr) {
            *why = std::string("no CUDA driver (") + kDriverLibrary + " not found: " + failure + ")";
        }
        return nullptr;
    }
    std::unique_ptr<DriverApi> api(new DriverApi(std::move(library)));
    // Function pointer from void*: conditionally supported, and supported where dlsym and
    // GetProcAddress are.
#define PINBENCH_DRIVER_RESOLVE(member, exported, type) \
    api->member.fn = reinterpret_cast<type>(api->library_->symbol(exported));
    PINBENCH_DRIVER_ENTRY_POINTS(PINBENCH_DRIVER_RESOLVE)
#undef PINBENCH_DRIVER_RESOLVE
    return api;
}

const std::string& DriverApi::library_name() const { return library_->loaded_name(); }

std::string DriverApi::missing(const char* name) const {
    return std::string(name) + " not exported by this driver (" + library_name() + ")";
}

std::string DriverApi::error_name(CUresult status) const {
    const char* name = nullptr;
    if (get_error_name.fn == nullptr || get_error_name.fn(status, &name) != CUDA_SUCCESS || name == nullptr) {
        return "CUDA_ERROR_" + std::to_string(static_cast<int>(status));
    }
    return name;
}

std::string DriverApi::error_text(CUresult status) const {
    const char* text = nullptr;
    if (get_error_string.fn == nullptr || get_error_string.fn(status, &text) != CUDA_SUCCESS ||
        text == nullptr) {
        return "no description";
    }
    return text;
}

void DriverApi::check(CUresult status, const std::string& api) const {
    if (status == CUDA_SUCCESS) return;
    throw CudaError(api, static_cast<int>(status), error_name(status), error_text(status));
}

namespace {

// The loaded driver, or why there is none; decided once per process.
struct LoadedDriver {
    std::unique_ptr<DriverApi> api;
    std::string why;
};

std::string version_text(int version) {
    return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

LoadedDriver load_and_init() {
    LoadedDriver loaded;
    auto api = DriverApi::load(&loaded.why);
    if (api == nullptr) return loaded;
    try {
        int version = 0;
        api->call(api->driver_get_version, &version);
        if (version < kOldestDriverVersion) {
            loaded.why = "no CUDA driver: " + api->library_name() + " is CUDA " + version_text(version) +
                         ", older than the oldest supported, " + kOldestDriverRelease;
            return loaded;
        }
        api->call(api->init, 0u);
    } catch (const std::exception& e) {
        loaded.why = e.what();  // e.g. "cuInit failed: CUDA_ERROR_NO_DEVICE (...)"
        return loaded;
    }
    loaded.api = std::move(api);
    return loaded;
}

// Why a process-wide object: the driver, like the runtime it replaces, is process state; the
// primary contexts and modules the core creates belong to it and must outlive any one caller.
// It is written once (thread-safe static initialisation) and only read afterwards.
const LoadedDriver& loaded_driver() {
    static const LoadedDriver loaded = load_and_init();
    return loaded;
}

}  // namespace

const DriverApi* try_driver(std::string* why) {
    const LoadedDriver& loaded = loaded_driver();
    if (loaded.api == nullptr && why != nullptr) *why = loaded.why;
    return loaded.api.get();
}

const DriverApi& driver() {
    std::string why;
    const DriverApi* api = try_driver(&why);
    if (api == nullptr) throw UnsupportedError(why);
    return *api;
}

void make_current(int device) {
    const DriverApi& d = driver();
    CUdevice handle = 0;
    d.call(d.device_get, &handle, device);
    CUcontext current = nullptr;
    d.call(d.ctx_get_current, &current);
    if (current != nullptr) {
        CUdevice current_device = 0;
        if (d.status(d.ctx_get_device, &current_device) == CUDA_SUCCESS && current_device == handle) return;
    }
    CUcontext primary = nullptr;
    d.call(d.primary_ctx_retain, &primary, handle);
    d.call(d.ctx_set_current, primary);
}

int current_device() {
    const DriverApi& d = driver();
    CUcontext current = nullptr;
    d.call(d.ctx_get_current, &current);
    if (current == nullptr) make_current(0);
    CUdevice device = 0;
    d.call(d.ctx_get_device, &device);
    return device;
}

}  // namespace pinbench::cuda
