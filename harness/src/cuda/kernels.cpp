#include "cuda/kernels.hpp"

#include <cstring>
#include <map>
#include <mutex>

#include "cuda/driver_api.hpp"
#include "cuda/kernels_ptx.hpp"  // generated from kernels.ptx (harness/CMakeLists.txt)

namespace pinbench::cuda {
namespace {

struct KernelModule {
    CUmodule module = nullptr;
    CUfunction warmup = nullptr;
    CUfunction checksum = nullptr;
};

// The module of each context. Why process-wide: launches come from free functions that hold no
// context object (first use, the capacity searches), as with the runtime, whose modules are
// process state too; loading per launch would allocate device memory inside measured steps.
// Modules are never unloaded: a context's lives as long as the process (driver_api.hpp).
class LoadedModules {
public:
    KernelModule for_current_context() {
        const DriverApi& d = driver();
        (void)current_device();  // a context is current from here on
        CUcontext context = nullptr;
        d.call(d.ctx_get_current, &context);
        const std::lock_guard<std::mutex> lock(mutex_);
        auto found = modules_.find(context);
        if (found != modules_.end()) return found->second;
        KernelModule loaded;
        d.call(d.module_load_data, &loaded.module, static_cast<const void*>(kKernelsPtx));
        d.call(d.module_get_function, &loaded.warmup, loaded.module, "pinbench_warmup");
        d.call(d.module_get_function, &loaded.checksum, loaded.module, "pinbench_checksum");
        modules_.emplace(context, loaded);
        return loaded;
    }

private:
    std::mutex mutex_;
    std::map<CUcontext, KernelModule> modules_;
};

KernelModule current_module() {
    static LoadedModules modules;
    return modules.for_current_context();
}

}  // namespace

void load_kernels() { (void)current_module(); }

void launch_warmup(CUstream stream) {
    const DriverApi& d = driver();
    d.call(d.launch_kernel, current_module().warmup, 1u, 1u, 1u, 1u, 1u, 1u, 0u, stream, nullptr, nullptr);
}

void launch_checksum(const void* data, std::size_t bytes, void* sum, CUstream stream) {
    const DriverApi& d = driver();
    const auto* base = static_cast<const unsigned char*>(data);
    // The kernel's parameters, in its order: words, n_words, tail, n_tail, sum.
    const void* words = base;
    std::size_t n_words = bytes / 4;
    const void* tail = base + n_words * 4;
    auto n_tail = static_cast<unsigned int>(bytes % 4);
    void* params[] = {&words, &n_words, &tail, &n_tail, &sum};
    d.call(d.launch_kernel, current_module().checksum, 1024u, 1u, 1u, 256u, 1u, 1u, 0u, stream, params,
           nullptr);
}

std::uint64_t host_checksum(const void* data, std::size_t bytes) {
    const auto* base = static_cast<const unsigned char*>(data);
    std::uint64_t sum = 0;
    std::size_t i = 0;
    for (; i + 4 <= bytes; i += 4) {
        unsigned int w;
        std::memcpy(&w, base + i, 4);
        sum += w;
    }
    for (; i < bytes; ++i) sum += base[i];
    return sum;
}

}  // namespace pinbench::cuda
