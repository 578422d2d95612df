// A C++ workload for `pinbench trace` (docs/trace.md): pins through every entry point of the
// traced list at once, each with a size of its own so that a trace can be checked byte for
// byte against what was asked, holds the peak long enough for the device samples, frees it all,
// then times small and large pin/unpin calls for the tracing-overhead ratio.
//   pin_each_api [--apis malloc_host,host_alloc,register,cu_alloc_host,cu_host_alloc,vmm,pool]
//                [--touch 0|1] [--scale GIB] [--hold-ms MS] [--timing-calls N]
// Prints one JSON object to stdout and, under pinbench trace, the same as a note.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

constexpr std::size_t kMiB = 1024 * 1024;
constexpr std::size_t kPage = 4096;

[[noreturn]] void fail(const char* what, const char* detail) {
    std::fprintf(stderr, "pin_each_api: %s failed: %s\n", what, detail);
    std::exit(1);
}
void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) fail(what, cudaGetErrorName(e));
}
void check(CUresult r, const char* what) {
    if (r != CUDA_SUCCESS) {
        const char* name = "?";
        cuGetErrorName(r, &name);
        fail(what, name);
    }
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v.empty() ? 0 : v[v.size() / 2];
}

std::string json_pair(const char* key, double value) {
    return "\"" + std::string(key) + "\": " + std::to_string(value);
}

}  // namespace

int main(int argc, char** argv) {
    double scale_gib = 1.0;  // the three large buffers are `scale` GiB each, the others half / quarter
    int hold_ms = 1500;
    int timing_calls = 40;
    bool touch = true;  // --touch 0: leave the buffers untouched by the device
    std::string apis = "malloc_host,host_alloc,register,cu_alloc_host,cu_host_alloc,vmm,pool";
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string a = argv[i];
        if (a == "--apis")
            apis = argv[i + 1];
        else if (a == "--touch")
            touch = std::string(argv[i + 1]) != "0";
        else if (a == "--scale")
            scale_gib = std::atof(argv[i + 1]);
        else if (a == "--hold-ms")
            hold_ms = std::atoi(argv[i + 1]);
        else if (a == "--timing-calls")
            timing_calls = std::atoi(argv[i + 1]);
        else
            fail("argument", a.c_str());
    }
    const auto big = static_cast<std::size_t>(scale_gib * 1024) * kMiB;
    const auto want = [&](const char* api) {
        return ("," + apis + ",").find("," + std::string(api) + ",") != std::string::npos;
    };

    check(cudaSetDevice(0), "cudaSetDevice");
    check(cudaFree(nullptr), "cudaFree(0)");  // the context first: its cost is not pinning's
    CUstream stream{};
    check(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate");
    // An independent view of the device cost: cudaMemGetInfo's free bytes, before and at the peak.
    std::size_t free_before = 0, free_at_peak = 0, total = 0;
    check(cudaMemGetInfo(&free_before, &total), "cudaMemGetInfo");

    // Distinct sizes: page-granular extras identify each call in the trace.
    const std::size_t malloc_host_bytes = big + 3 * kPage;
    const std::size_t host_alloc_bytes = big + 5 * kPage;
    const std::size_t register_bytes = big + 7 * kPage;
    const std::size_t cu_alloc_host_bytes = big / 2 + 1 * kPage;
    const std::size_t cu_host_alloc_bytes = big / 2 + 2 * kPage;
    const std::size_t pool_bytes = big / 4 + 123;

    void* malloc_host = nullptr;
    if (want("malloc_host")) check(cudaMallocHost(&malloc_host, malloc_host_bytes), "cudaMallocHost");
    void* host_alloc = nullptr;
    if (want("host_alloc"))
        check(cudaHostAlloc(&host_alloc, host_alloc_bytes, cudaHostAllocPortable), "cudaHostAlloc");
    void* pageable = nullptr;
    if (want("register")) {
        pageable = std::aligned_alloc(kPage, register_bytes);
        if (pageable == nullptr) fail("aligned_alloc", "null");
        std::memset(pageable, 1, register_bytes);  // touched: registering maps present pages
        check(cudaHostRegister(pageable, register_bytes, cudaHostRegisterDefault), "cudaHostRegister");
    }
    void* cu_alloc_host = nullptr;
    if (want("cu_alloc_host")) check(cuMemAllocHost(&cu_alloc_host, cu_alloc_host_bytes), "cuMemAllocHost");
    void* cu_host_alloc = nullptr;
    if (want("cu_host_alloc"))
        check(cuMemHostAlloc(&cu_host_alloc, cu_host_alloc_bytes, CU_MEMHOSTALLOC_DEVICEMAP),
              "cuMemHostAlloc");
    const bool vmm_on = want("vmm"), pool_on = want("pool");

    // cuMemCreate with a host NUMA location (node 0), mapped so the device can read it.
    CUmemAllocationProp prop{};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
    prop.location.id = 0;
    std::size_t granularity = 0;
    std::size_t vmm_bytes = 0;
    CUmemGenericAllocationHandle vmm{};
    CUdeviceptr vmm_va = 0;
    if (vmm_on) {
        check(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
              "cuMemGetAllocationGranularity");
        vmm_bytes = (big / 2 + granularity - 1) / granularity * granularity;
        check(cuMemCreate(&vmm, vmm_bytes, &prop, 0), "cuMemCreate(host NUMA)");
        check(cuMemAddressReserve(&vmm_va, vmm_bytes, 0, 0, 0), "cuMemAddressReserve");
        check(cuMemMap(vmm_va, vmm_bytes, 0, vmm, 0), "cuMemMap");
        CUmemAccessDesc access{};
        access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = 0;
        access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        check(cuMemSetAccess(vmm_va, vmm_bytes, &access, 1), "cuMemSetAccess");
    }

    // A host-located memory pool and one allocation from it.
    CUmemPoolProps pool_props{};
    pool_props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    pool_props.location.type = CU_MEM_LOCATION_TYPE_HOST_NUMA;
    pool_props.location.id = 0;
    CUmemoryPool pool{};
    CUdeviceptr pooled = 0;
    cuuint64_t pool_reserved = 0;
    if (pool_on) {
        check(cuMemPoolCreate(&pool, &pool_props), "cuMemPoolCreate(host NUMA)");
        check(cuMemAllocFromPoolAsync(&pooled, pool_bytes, pool, stream), "cuMemAllocFromPoolAsync");
        check(cuStreamSynchronize(stream), "cuStreamSynchronize");
        check(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT, &pool_reserved),
              "cuMemPoolGetAttribute");
    }

    // Touch every buffer from the device (a copy of up to 64 MiB of each into device memory):
    // some kinds of pinned memory cost device memory only once the device has used them.
    if (touch) {
        constexpr std::size_t kTouch = 64 * kMiB;
        void* scratch = nullptr;
        check(cudaMalloc(&scratch, kTouch), "cudaMalloc(scratch)");
        const std::pair<const void*, std::size_t> buffers[] = {
            {malloc_host, malloc_host_bytes},
            {host_alloc, host_alloc_bytes},
            {pageable, register_bytes},
            {cu_alloc_host, cu_alloc_host_bytes},
            {cu_host_alloc, cu_host_alloc_bytes},
            {reinterpret_cast<const void*>(vmm_va), vmm_bytes},
            {reinterpret_cast<const void*>(pooled), pool_bytes},
        };
        for (const auto& [ptr, bytes] : buffers) {
            if (ptr == nullptr) continue;
            for (std::size_t off = 0; off < bytes; off += kTouch)
                check(cudaMemcpy(scratch, static_cast<const char*>(ptr) + off, std::min(kTouch, bytes - off),
                                 cudaMemcpyDefault),
                      "cudaMemcpy(touch)");
        }
        check(cudaFree(scratch), "cudaFree(scratch)");
    }
    check(cudaMemGetInfo(&free_at_peak, &total), "cudaMemGetInfo");
    std::this_thread::sleep_for(std::chrono::milliseconds(hold_ms));  // the peak, for the samplers

    if (pool_on) {
        check(cuMemFreeAsync(pooled, stream), "cuMemFreeAsync");
        check(cuStreamSynchronize(stream), "cuStreamSynchronize");
        check(cuMemPoolTrimTo(pool, 0), "cuMemPoolTrimTo");
        check(cuMemPoolDestroy(pool), "cuMemPoolDestroy");
    }
    if (vmm_on) {
        check(cuMemUnmap(vmm_va, vmm_bytes), "cuMemUnmap");
        check(cuMemAddressFree(vmm_va, vmm_bytes), "cuMemAddressFree");
        check(cuMemRelease(vmm), "cuMemRelease");
    }
    if (cu_host_alloc != nullptr) check(cuMemFreeHost(cu_host_alloc), "cuMemFreeHost");
    if (cu_alloc_host != nullptr) check(cuMemFreeHost(cu_alloc_host), "cuMemFreeHost");
    if (pageable != nullptr) {
        check(cudaHostUnregister(pageable), "cudaHostUnregister");
        std::free(pageable);
    }
    if (host_alloc != nullptr) check(cudaFreeHost(host_alloc), "cudaFreeHost");
    if (malloc_host != nullptr) check(cudaFreeHost(malloc_host), "cudaFreeHost");
    check(cuStreamDestroy(stream), "cuStreamDestroy");

    // Timing: one pin + unpin at a time, small (one page) and large (64 MiB), each call timed.
    auto time_calls = [&](std::size_t bytes, std::vector<double>& alloc_us, std::vector<double>& free_us) {
        for (int i = 0; i < timing_calls; ++i) {
            void* p = nullptr;
            const auto t0 = std::chrono::steady_clock::now();
            check(cudaHostAlloc(&p, bytes, cudaHostAllocDefault), "cudaHostAlloc(timing)");
            const auto t1 = std::chrono::steady_clock::now();
            check(cudaFreeHost(p), "cudaFreeHost(timing)");
            const auto t2 = std::chrono::steady_clock::now();
            alloc_us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count());
            free_us.push_back(std::chrono::duration<double, std::micro>(t2 - t1).count());
        }
    };
    std::vector<double> small_alloc, small_free, large_alloc, large_free;
    time_calls(kPage, small_alloc, small_free);
    time_calls(64 * kMiB, large_alloc, large_free);

    std::string out = "{\"workload\": \"pin_each_api\", \"apis\": \"" + apis + "\", \"asked\": {";
    out += "\"cudaMallocHost\": " + std::to_string(malloc_host_bytes);
    out += ", \"cudaHostAlloc\": " + std::to_string(host_alloc_bytes);
    out += ", \"cudaHostRegister\": " + std::to_string(register_bytes);
    out += ", \"cuMemAllocHost\": " + std::to_string(cu_alloc_host_bytes);
    out += ", \"cuMemHostAlloc\": " + std::to_string(cu_host_alloc_bytes);
    out += ", \"cuMemCreate\": " + std::to_string(vmm_bytes);
    out += ", \"cuMemAllocFromPoolAsync\": " + std::to_string(pool_bytes) + "}";
    out += ", \"pool_reserved\": " + std::to_string(pool_reserved);
    out += ", \"meminfo_free_drop_at_peak\": " +
           std::to_string(static_cast<long long>(free_before) - static_cast<long long>(free_at_peak));
    out += std::string(", \"touched\": ") + (touch ? "true" : "false");
    out += ", \"timing_calls\": " + std::to_string(timing_calls) + ", ";
    out += json_pair("small_alloc_us_median", median(small_alloc)) + ", ";
    out += json_pair("small_free_us_median", median(small_free)) + ", ";
    out += json_pair("large_alloc_us_median", median(large_alloc)) + ", ";
    out += json_pair("large_free_us_median", median(large_free)) + "}";
    std::printf("%s\n", out.c_str());
    if (const char* notes = std::getenv("PINBENCH_TRACE_NOTES"); notes != nullptr && *notes != '\0') {
        std::ofstream(notes, std::ios::app) << out << "\n";
    }
    return 0;
}
