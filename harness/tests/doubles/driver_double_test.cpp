// The test double itself, driven through dlopen as the harness loads a driver: its costs are
// the scripted ones to the byte, its state is shared between processes, its failures, blind
// probes and missing entry points are the scripted ones, and its kernels do their work.
#include <cuda.h>
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <nvml.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "pinbench/vocabulary/test_double.hpp"

namespace {

namespace fs = std::filesystem;
constexpr std::uint64_t MiB = std::uint64_t{1} << 20;

// The loaded pair; unloaded at the end of each test so the next one reads its own script.
class DriverDouble {
public:
    DriverDouble(const std::string& folder) {
        cuda_ = ::dlopen((folder + "/libcuda.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
        nvml_ = ::dlopen((folder + "/libnvidia-ml.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
    }
    ~DriverDouble() {
        if (cuda_ != nullptr) ::dlclose(cuda_);
        if (nvml_ != nullptr) ::dlclose(nvml_);
    }
    DriverDouble(const DriverDouble&) = delete;
    DriverDouble& operator=(const DriverDouble&) = delete;
    bool loaded() const { return cuda_ != nullptr && nvml_ != nullptr; }
    // Unloads and loads NVML alone, as a program that closes NVML and opens it again.
    void reload_nvml(const std::string& folder) {
        ::dlclose(nvml_);
        nvml_ = ::dlopen((folder + "/libnvidia-ml.so.1").c_str(), RTLD_NOW | RTLD_LOCAL);
    }
    void* cuda_symbol(const char* name) const { return ::dlsym(cuda_, name); }

    // The entry point `name` typed as `Fn` (the header's own type, through decltype).
    template <class Fn>
    Fn* cu(const char* name) const {
        void* p = ::dlsym(cuda_, name);
        EXPECT_NE(p, nullptr) << name;
        return reinterpret_cast<Fn*>(p);
    }
    template <class Fn>
    Fn* nv(const char* name) const {
        void* p = ::dlsym(nvml_, name);
        EXPECT_NE(p, nullptr) << name;
        return reinterpret_cast<Fn*>(p);
    }

private:
    void* cuda_ = nullptr;
    void* nvml_ = nullptr;
};

#define CU(lib, fn) (lib).cu<decltype(fn)>(#fn)
#define NV(lib, fn) (lib).nv<decltype(fn)>(#fn)

class DriverDoubleTest : public ::testing::Test {
protected:
    // Writes the script (and a fresh state file beside it) and names it to the double.
    void script(const std::string& text) {
        dir_ = fs::path(::testing::TempDir()) /
               ("pinbench-double-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
        // The double reads its script when loaded: it must have been unloaded since the last one.
        for (const char* variant : {"current", "old"}) {
            for (const char* lib : {"/libcuda.so.1", "/libnvidia-ml.so.1"}) {
                void* still = ::dlopen((folder(variant) + lib).c_str(), RTLD_NOW | RTLD_NOLOAD);
                if (still != nullptr) ::dlclose(still);
                ASSERT_EQ(still, nullptr) << variant << lib << " is still loaded from an earlier script";
            }
        }
        const fs::path file = dir_ / "double.conf";
        std::ofstream(file) << text;
        ::setenv("PINBENCH_DRIVER_DOUBLE", file.c_str(), 1);
    }
    void TearDown() override {
        ::unsetenv("PINBENCH_DRIVER_DOUBLE");
        if (!dir_.empty()) fs::remove_all(dir_);
    }
    static std::string folder(const char* variant) {
        return std::string(PINBENCH_DRIVER_DOUBLE_DIR) + "/" + variant;
    }

    // cuInit, the primary context of device 0 made current.
    static void open_context(const DriverDouble& lib) {
        ASSERT_EQ(CU(lib, cuInit)(0), CUDA_SUCCESS);
        CUcontext ctx = nullptr;
        ASSERT_EQ(CU(lib, cuDevicePrimaryCtxRetain)(&ctx, 0), CUDA_SUCCESS);
        ASSERT_EQ(CU(lib, cuCtxSetCurrent)(ctx), CUDA_SUCCESS);
    }
    static std::uint64_t cuda_free(const DriverDouble& lib) {
        size_t free = 0, total = 0;
        EXPECT_EQ(CU(lib, cuMemGetInfo_v2)(&free, &total), CUDA_SUCCESS);
        return free;
    }
    static std::uint64_t nvml_used(const DriverDouble& lib) {
        nvmlDevice_t dev = nullptr;
        EXPECT_EQ(NV(lib, nvmlDeviceGetHandleByIndex_v2)(0, &dev), NVML_SUCCESS);
        nvmlMemory_t memory{};
        EXPECT_EQ(NV(lib, nvmlDeviceGetMemoryInfo)(dev, &memory), NVML_SUCCESS);
        return memory.used;
    }
    // pid -> used bytes in NVML's compute process list.
    static std::vector<std::pair<unsigned, unsigned long long>> nvml_processes(const DriverDouble& lib) {
        nvmlDevice_t dev = nullptr;
        EXPECT_EQ(NV(lib, nvmlDeviceGetHandleByIndex_v2)(0, &dev), NVML_SUCCESS);
        nvmlProcessInfo_t infos[8]{};
        unsigned count = 8;
        EXPECT_EQ(NV(lib, nvmlDeviceGetComputeRunningProcesses_v3)(dev, &count, infos), NVML_SUCCESS);
        std::vector<std::pair<unsigned, unsigned long long>> out;
        for (unsigned i = 0; i < count; ++i) out.emplace_back(infos[i].pid, infos[i].usedGpuMemory);
        return out;
    }

    fs::path dir_;
};

TEST_F(DriverDoubleTest, SaysItIsATestDoubleThroughCudaAndNvml) {
    script("devices = 2\n");
    DriverDouble lib(folder("current"));
    ASSERT_TRUE(lib.loaded());
    ASSERT_EQ(CU(lib, cuInit)(0), CUDA_SUCCESS);
    ASSERT_EQ(NV(lib, nvmlInit_v2)(), NVML_SUCCESS);
    int count = 0;
    ASSERT_EQ(CU(lib, cuDeviceGetCount)(&count), CUDA_SUCCESS);
    EXPECT_EQ(count, 2);
    char name[128] = {};
    ASSERT_EQ(CU(lib, cuDeviceGetName)(name, sizeof name, 1), CUDA_SUCCESS);
    EXPECT_TRUE(pinbench::names_test_double(name)) << name;
    char release[96] = {};
    ASSERT_EQ(NV(lib, nvmlSystemGetDriverVersion)(release, sizeof release), NVML_SUCCESS);
    EXPECT_TRUE(pinbench::names_test_double(release)) << release;
    // The harness pairs CUDA and NVML devices by UUID: they must agree, and differ by device.
    CUuuid uuid{};
    ASSERT_EQ(CU(lib, cuDeviceGetUuid_v2)(&uuid, 1), CUDA_SUCCESS);
    nvmlDevice_t dev = nullptr;
    ASSERT_EQ(NV(lib, nvmlDeviceGetHandleByIndex_v2)(1, &dev), NVML_SUCCESS);
    char text[96] = {};
    ASSERT_EQ(NV(lib, nvmlDeviceGetUUID)(dev, text, sizeof text), NVML_SUCCESS);
    char hex[3];
    std::snprintf(hex, sizeof hex, "%02x", static_cast<unsigned char>(uuid.bytes[15]));
    EXPECT_EQ(std::string(text).substr(std::string(text).size() - 2), hex);
    EXPECT_EQ(std::string(text).rfind("GPU-", 0), 0u);
    char bus[32] = {};
    ASSERT_EQ(CU(lib, cuDeviceGetPCIBusId)(bus, sizeof bus, 1), CUDA_SUCCESS);
    nvmlPciInfo_t pci{};
    ASSERT_EQ(NV(lib, nvmlDeviceGetPciInfo_v3)(dev, &pci), NVML_SUCCESS);
    EXPECT_STREQ(bus, pci.busIdLegacy);
}

TEST_F(DriverDoubleTest, CallsBeforeCuInitFailAsOnADriver) {
    script("");
    DriverDouble lib(folder("current"));
    int count = 0;
    EXPECT_EQ(CU(lib, cuDeviceGetCount)(&count), CUDA_ERROR_NOT_INITIALIZED);
    ASSERT_EQ(CU(lib, cuInit)(0), CUDA_SUCCESS);
    size_t free = 0, total = 0;
    EXPECT_EQ(CU(lib, cuMemGetInfo_v2)(&free, &total), CUDA_ERROR_INVALID_CONTEXT);
}

TEST_F(DriverDoubleTest, ContextAndPinnedCostsAreTheScriptedOnesToTheByte) {
    script(
        "total_memory = 4GiB\nreserved_memory = 100MiB\ncontext_cost = 300MiB\n"
        "pin_cost_per_gib.cuMemHostAlloc = 2MiB\npin_cost_per_gib.cuMemHostAlloc:2 = 8MiB\n"
        "pin_cost_base.cuMemHostRegister_v2 = 64KiB\npin_cost_per_gib.cuMemHostRegister_v2 = 1MiB\n");
    DriverDouble lib(folder("current"));
    ASSERT_EQ(NV(lib, nvmlInit_v2)(), NVML_SUCCESS);
    const std::uint64_t total = std::uint64_t{4} << 30;
    ASSERT_NO_FATAL_FAILURE(open_context(lib));
    EXPECT_EQ(cuda_free(lib), total - 400 * MiB);
    EXPECT_EQ(nvml_used(lib), 400 * MiB);

    void* pinned = nullptr;
    ASSERT_EQ(CU(lib, cuMemHostAlloc)(&pinned, 512 * MiB, 0), CUDA_SUCCESS);
    EXPECT_EQ(cuda_free(lib), total - 400 * MiB - 1 * MiB);  // 2 MiB per GiB of 512 MiB
    void* mapped = nullptr;
    ASSERT_EQ(CU(lib, cuMemHostAlloc)(&mapped, 256 * MiB, CU_MEMHOSTALLOC_DEVICEMAP), CUDA_SUCCESS);
    EXPECT_EQ(cuda_free(lib), total - 400 * MiB - 3 * MiB);  // the flags' own price: 8 MiB per GiB
    std::vector<std::byte> plain(16 * MiB);
    ASSERT_EQ(CU(lib, cuMemHostRegister_v2)(plain.data(), plain.size(), 0), CUDA_SUCCESS);
    EXPECT_EQ(cuda_free(lib), total - 400 * MiB - 3 * MiB - 64 * 1024 - 16 * 1024);
    EXPECT_EQ(nvml_used(lib), total - cuda_free(lib));
    const auto processes = nvml_processes(lib);
    ASSERT_EQ(processes.size(), 1u);
    EXPECT_EQ(processes[0].first, static_cast<unsigned>(::getpid()));
    EXPECT_EQ(processes[0].second, 300 * MiB + 3 * MiB + 80 * 1024);

    EXPECT_EQ(CU(lib, cuMemHostRegister_v2)(plain.data() + 4096, 4096, 0),
              CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED);
    ASSERT_EQ(CU(lib, cuMemHostUnregister)(plain.data()), CUDA_SUCCESS);
    ASSERT_EQ(CU(lib, cuMemFreeHost)(mapped), CUDA_SUCCESS);
    ASSERT_EQ(CU(lib, cuMemFreeHost)(pinned), CUDA_SUCCESS);
    EXPECT_EQ(cuda_free(lib), total - 400 * MiB);
    EXPECT_EQ(CU(lib, cuMemHostUnregister)(plain.data()), CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED);
    ASSERT_EQ(CU(lib, cuDevicePrimaryCtxRelease_v2)(0), CUDA_SUCCESS);
    EXPECT_EQ(nvml_used(lib), 100 * MiB);
}

TEST_F(DriverDoubleTest, UnloadingNvmlLeavesWhatTheProcessHolds) {
    script("context_cost = 4MiB\n");
    DriverDouble lib(folder("current"));
    ASSERT_NO_FATAL_FAILURE(open_context(lib));
    CUdeviceptr d = 0;
    ASSERT_EQ(CU(lib, cuMemAlloc_v2)(&d, 8 * MiB), CUDA_SUCCESS);
    ASSERT_EQ(NV(lib, nvmlInit_v2)(), NVML_SUCCESS);
    EXPECT_EQ(nvml_used(lib), 12 * MiB);
    lib.reload_nvml(folder("current"));
    ASSERT_TRUE(lib.loaded());
    ASSERT_EQ(NV(lib, nvmlInit_v2)(), NVML_SUCCESS);
    EXPECT_EQ(nvml_used(lib), 12 * MiB);
    EXPECT_EQ(cuda_free(lib), 1024 * MiB - 12 * MiB);
}

TEST_F(DriverDoubleTest, DeviceMemoryRunsOutAtTheScriptedTotal) {
    script("total_memory = 64MiB\n");
    DriverDouble lib(folder("current"));
    ASSERT_NO_FATAL_FAILURE(open_context(lib));
    CUdeviceptr a = 0, b = 0;
    ASSERT_EQ(CU(lib, cuMemAlloc_v2)(&a, 48 * MiB), CUDA_SUCCESS);
    EXPECT_EQ(CU(lib, cuMemAlloc_v2)(&b, 17 * MiB), CUDA_ERROR_OUT_OF_MEMORY);
    ASSERT_EQ(CU(lib, cuMemAlloc_v2)(&b, 16 * MiB), CUDA_SUCCESS);
    EXPECT_EQ(cuda_free(lib), 0u);
    EXPECT_EQ(CU(lib, cuMemFree_v2)(a), CUDA_SUCCESS);
    EXPECT_EQ(CU(lib, cuMemFree_v2)(a), CUDA_ERROR_INVALID_VALUE);
    EXPECT_EQ(cuda_free(lib), 48 * MiB);
}

TEST_F(DriverDoubleTest, ProcessesShareTheDeviceAndADeadOneIsFreed) {
    script("total_memory = 1GiB\ncontext_cost = 10MiB\n");
    int ready[2], hold[2];
    ASSERT_EQ(::pipe(ready), 0);
    ASSERT_EQ(::pipe(hold), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {  // allocates 100 MiB, says so, and waits to be killed (or for this test to end)
        ::alarm(20);
        ::close(hold[1]);
        DriverDouble lib(folder("current"));
        CUcontext ctx = nullptr;
        CUdeviceptr p = 0;
        const bool ok = CU(lib, cuInit)(0) == CUDA_SUCCESS &&
                        CU(lib, cuDevicePrimaryCtxRetain)(&ctx, 0) == CUDA_SUCCESS &&
                        CU(lib, cuCtxSetCurrent)(ctx) == CUDA_SUCCESS &&
                        CU(lib, cuMemAlloc_v2)(&p, 100 * MiB) == CUDA_SUCCESS;
        const char byte = ok ? '1' : '0';
        (void)!::write(ready[1], &byte, 1);
        char ignored = 0;
        (void)!::read(hold[0], &ignored, 1);  // returns when the parent closes its end or dies
        ::_exit(0);
    }
    ::close(ready[1]);
    ::close(hold[0]);
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } release_child{hold[1]};
    char byte = 0;
    ASSERT_EQ(::read(ready[0], &byte, 1), 1);
    ::close(ready[0]);
    ASSERT_EQ(byte, '1');
    DriverDouble lib(folder("current"));
    ASSERT_EQ(NV(lib, nvmlInit_v2)(), NVML_SUCCESS);
    EXPECT_EQ(nvml_used(lib), 110 * MiB);
    const auto processes = nvml_processes(lib);
    ASSERT_EQ(processes.size(), 1u);
    EXPECT_EQ(processes[0].first, static_cast<unsigned>(child));
    ASSERT_NO_FATAL_FAILURE(open_context(lib));
    EXPECT_EQ(cuda_free(lib), 1024 * MiB - 120 * MiB);  // its context and the child's use
    ::kill(child, SIGKILL);
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_EQ(nvml_used(lib), 10 * MiB);  // only this process's context is left
    EXPECT_EQ(nvml_processes(lib).size(), 1u);
}

TEST_F(DriverDoubleTest, ScriptedFailuresHitTheNthCallAndSizesAboveTheLimit) {
    script("fail_call.cuMemHostAlloc = 2\nfail_above.cuMemAlloc_v2 = 1MiB\nfail_error.cuMemAlloc_v2 = 999\n");
    DriverDouble lib(folder("current"));
    ASSERT_NO_FATAL_FAILURE(open_context(lib));
    void* p[3] = {};
    EXPECT_EQ(CU(lib, cuMemHostAlloc)(&p[0], MiB, 0), CUDA_SUCCESS);
    EXPECT_EQ(CU(lib, cuMemHostAlloc)(&p[1], MiB, 0), CUDA_ERROR_OUT_OF_MEMORY);
    EXPECT_EQ(CU(lib, cuMemHostAlloc)(&p[2], MiB, 0), CUDA_SUCCESS);
    CUdeviceptr d = 0;
    EXPECT_EQ(CU(lib, cuMemAlloc_v2)(&d, MiB), CUDA_SUCCESS);
    EXPECT_EQ(CU(lib, cuMemAlloc_v2)(&d, MiB + 1), CUDA_ERROR_UNKNOWN);
}

TEST_F(DriverDoubleTest, BlindProbesDoNotMoveWithAllocations) {
    script("context_cost = 1MiB\nblind = cuMemGetInfo\n");
    {
        DriverDouble lib(folder("current"));
        ASSERT_EQ(NV(lib, nvmlInit_v2)(), NVML_SUCCESS);
        ASSERT_NO_FATAL_FAILURE(open_context(lib));
        const std::uint64_t before = cuda_free(lib);
        CUdeviceptr d = 0;
        ASSERT_EQ(CU(lib, cuMemAlloc_v2)(&d, 8 * MiB), CUDA_SUCCESS);
        EXPECT_EQ(cuda_free(lib), before);
        EXPECT_EQ(nvml_used(lib), 9 * MiB);  // NVML still sees it
    }
    script("context_cost = 1MiB\nblind = nvml\n");
    DriverDouble lib(folder("current"));
    ASSERT_EQ(NV(lib, nvmlInit_v2)(), NVML_SUCCESS);
    ASSERT_NO_FATAL_FAILURE(open_context(lib));
    const std::uint64_t before = cuda_free(lib);
    CUdeviceptr d = 0;
    ASSERT_EQ(CU(lib, cuMemAlloc_v2)(&d, 8 * MiB), CUDA_SUCCESS);
    EXPECT_EQ(cuda_free(lib), before - 8 * MiB);
    EXPECT_EQ(nvml_used(lib), 0u);
}

TEST_F(DriverDoubleTest, PerProcessMemoryIsNotAvailableOnlyWhenScripted) {
    script("nvml_process_memory = not_available\n");
    DriverDouble lib(folder("current"));
    ASSERT_EQ(NV(lib, nvmlInit_v2)(), NVML_SUCCESS);
    ASSERT_NO_FATAL_FAILURE(open_context(lib));
    const auto processes = nvml_processes(lib);
    ASSERT_EQ(processes.size(), 1u);
    EXPECT_EQ(processes[0].second, NVML_VALUE_NOT_AVAILABLE);
}

TEST_F(DriverDoubleTest, OldDriverBuildLacksTheVmmAndPoolEntryPoints) {
    script("");
    DriverDouble old(folder("old"));
    ASSERT_TRUE(old.loaded());
    for (const char* name :
         {"cuMemCreate", "cuMemMap", "cuMemAddressReserve", "cuMemPoolCreate", "cuMemAllocFromPoolAsync"}) {
        EXPECT_EQ(old.cuda_symbol(name), nullptr) << name;
    }
    EXPECT_NE(old.cuda_symbol("cuMemHostAlloc"), nullptr);
    EXPECT_NE(old.cuda_symbol("cuMemHostRegister_v2"), nullptr);
}

TEST_F(DriverDoubleTest, VmmAndPoolHostMemoryCostTheirScriptedPrices) {
    script("pin_cost_per_gib.cuMemCreate = 4MiB\npin_cost_per_gib.cuMemAllocFromPoolAsync = 16MiB\n");
    DriverDouble lib(folder("current"));
    ASSERT_NO_FATAL_FAILURE(open_context(lib));
    const std::uint64_t start = cuda_free(lib);
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
    size_t granularity = 0;
    ASSERT_EQ(CU(lib, cuMemGetAllocationGranularity)(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
              CUDA_SUCCESS);
    const size_t bytes = 256 * MiB;
    ASSERT_EQ(bytes % granularity, 0u);
    CUmemGenericAllocationHandle handle = 0;
    ASSERT_EQ(CU(lib, cuMemCreate)(&handle, bytes, &prop, 0), CUDA_SUCCESS);
    EXPECT_EQ(start - cuda_free(lib), 1 * MiB);
    CUdeviceptr va = 0;
    ASSERT_EQ(CU(lib, cuMemAddressReserve)(&va, bytes, granularity, 0, 0), CUDA_SUCCESS);
    ASSERT_EQ(CU(lib, cuMemMap)(va, bytes, 0, handle, 0), CUDA_SUCCESS);
    CUmemAccessDesc access{};
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    ASSERT_EQ(CU(lib, cuMemSetAccess)(va, bytes, &access, 1), CUDA_SUCCESS);
    auto* host = reinterpret_cast<unsigned char*>(va);
    host[bytes - 1] = 7;
    CUdeviceptr dev = 0;
    ASSERT_EQ(CU(lib, cuMemAlloc_v2)(&dev, 1), CUDA_SUCCESS);
    ASSERT_EQ(CU(lib, cuMemcpyHtoD_v2)(dev, host + bytes - 1, 1), CUDA_SUCCESS);
    unsigned char back = 0;
    ASSERT_EQ(CU(lib, cuMemcpyDtoH_v2)(&back, dev, 1), CUDA_SUCCESS);
    EXPECT_EQ(back, 7);
    ASSERT_EQ(CU(lib, cuMemFree_v2)(dev), CUDA_SUCCESS);
    ASSERT_EQ(CU(lib, cuMemUnmap)(va, bytes), CUDA_SUCCESS);
    ASSERT_EQ(CU(lib, cuMemAddressFree)(va, bytes), CUDA_SUCCESS);
    ASSERT_EQ(CU(lib, cuMemRelease)(handle), CUDA_SUCCESS);
    EXPECT_EQ(cuda_free(lib), start);

    CUmemPoolProps props{};
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_HOST;
    CUmemoryPool pool = nullptr;
    ASSERT_EQ(CU(lib, cuMemPoolCreate)(&pool, &props), CUDA_SUCCESS);
    CUdeviceptr from_pool = 0;
    ASSERT_EQ(CU(lib, cuMemAllocFromPoolAsync)(&from_pool, 64 * MiB, pool, nullptr), CUDA_SUCCESS);
    EXPECT_EQ(start - cuda_free(lib), 1 * MiB);
    cuuint64_t reserved = 0;
    ASSERT_EQ(CU(lib, cuMemPoolGetAttribute)(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &reserved),
              CUDA_SUCCESS);
    EXPECT_EQ(reserved, 64 * MiB);
    ASSERT_EQ(CU(lib, cuMemFreeAsync)(from_pool, nullptr), CUDA_SUCCESS);
    ASSERT_EQ(CU(lib, cuMemPoolDestroy)(pool), CUDA_SUCCESS);
    EXPECT_EQ(cuda_free(lib), start);
}

// A PTX module as the harness loads one: only its entry names matter to the double.
constexpr const char* kernels_ptx =
    ".version 7.0\n.target sm_52\n.address_size 64\n"
    ".visible .entry pinbench_checksum(.param .u64 a) { ret; }\n"
    ".visible .entry pinbench_warmup() { ret; }\n"
    ".visible .entry mystery_kernel() { ret; }\n";

TEST_F(DriverDoubleTest, ChecksumKernelSumsMappedHostMemoryOnTheHost) {
    script("");
    DriverDouble lib(folder("current"));
    ASSERT_NO_FATAL_FAILURE(open_context(lib));
    CUmodule module = nullptr;
    ASSERT_EQ(CU(lib, cuModuleLoadData)(&module, kernels_ptx), CUDA_SUCCESS);
    CUfunction checksum = nullptr, missing = nullptr, mystery = nullptr;
    ASSERT_EQ(CU(lib, cuModuleGetFunction)(&checksum, module, "pinbench_checksum"), CUDA_SUCCESS);
    EXPECT_EQ(CU(lib, cuModuleGetFunction)(&missing, module, "pinbench_check"), CUDA_ERROR_NOT_FOUND);
    ASSERT_EQ(CU(lib, cuModuleGetFunction)(&mystery, module, "mystery_kernel"), CUDA_SUCCESS);

    void* host = nullptr;
    const size_t bytes = 4099;  // 1024 words and a 3-byte tail
    ASSERT_EQ(CU(lib, cuMemHostAlloc)(&host, bytes, CU_MEMHOSTALLOC_DEVICEMAP), CUDA_SUCCESS);
    auto* b = static_cast<unsigned char*>(host);
    std::uint64_t expected = 0;
    for (size_t i = 0; i < bytes; ++i) b[i] = static_cast<unsigned char>(i * 7);
    for (size_t i = 0; i + 4 <= bytes; i += 4) {
        unsigned w = 0;
        std::memcpy(&w, b + i, 4);
        expected += w;
    }
    for (size_t i = bytes / 4 * 4; i < bytes; ++i) expected += b[i];
    CUdeviceptr mapped = 0, sum = 0;
    ASSERT_EQ(CU(lib, cuMemHostGetDevicePointer_v2)(&mapped, host, 0), CUDA_SUCCESS);
    ASSERT_EQ(CU(lib, cuMemAlloc_v2)(&sum, 8), CUDA_SUCCESS);
    ASSERT_EQ(CU(lib, cuMemsetD8_v2)(sum, 0, 8), CUDA_SUCCESS);
    const unsigned char* words = reinterpret_cast<const unsigned char*>(mapped);
    size_t n_words = bytes / 4;
    const unsigned char* tail = words + n_words * 4;
    unsigned n_tail = bytes % 4;
    unsigned long long* sum_ptr = reinterpret_cast<unsigned long long*>(sum);
    void* params[] = {&words, &n_words, &tail, &n_tail, &sum_ptr};
    ASSERT_EQ(CU(lib, cuLaunchKernel)(checksum, 1024, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr),
              CUDA_SUCCESS);
    unsigned long long got = 0;
    ASSERT_EQ(CU(lib, cuMemcpyDtoH_v2)(&got, sum, sizeof got), CUDA_SUCCESS);
    EXPECT_EQ(got, expected);
    // Memory the device cannot reach is an illegal address, not a sum of whatever is there.
    std::vector<unsigned char> pageable(64);
    const unsigned char* unreachable = pageable.data();
    size_t sixteen = 16;
    void* bad[] = {&unreachable, &sixteen, &tail, &n_tail, &sum_ptr};
    EXPECT_EQ(CU(lib, cuLaunchKernel)(checksum, 1, 1, 1, 1, 1, 1, 0, nullptr, bad, nullptr),
              CUDA_ERROR_ILLEGAL_ADDRESS);
    // A kernel the double has no effect for fails instead of pretending.
    EXPECT_EQ(CU(lib, cuLaunchKernel)(mystery, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr),
              CUDA_ERROR_NOT_SUPPORTED);
}

TEST_F(DriverDoubleTest, GetProcAddressFindsVersionedNames) {
    script("");
    DriverDouble lib(folder("current"));
    void* fn = nullptr;
    CUdriverProcAddressQueryResult found{};
    ASSERT_EQ(CU(lib, cuGetProcAddress_v2)("cuMemAlloc", &fn, 12000, 0, &found), CUDA_SUCCESS);
    EXPECT_EQ(fn, lib.cuda_symbol("cuMemAlloc_v2"));
    EXPECT_EQ(CU(lib, cuGetProcAddress_v2)("cuNoSuchCall", &fn, 12000, 0, &found), CUDA_ERROR_NOT_FOUND);
    EXPECT_EQ(found, CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND);
}

}  // namespace
