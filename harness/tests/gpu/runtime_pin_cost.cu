// The reference for the driver path (driver_vs_runtime_test.cpp): what pinning costs in device
// memory when a program calls the CUDA runtime itself, built with nvcc and linked with cudart.
//   pinbench_runtime_pin_cost API BYTES DEVICE_POINTER
// API is a pinbench API variant with standard pages (cudaMallocHost, cudaHostAlloc:<flags>,
// cudaHostRegister:<flags>, cuMemCreate:host, cudaMallocFromPoolAsync:host, pageable);
// DEVICE_POINTER 1 makes first use read the buffer through its device pointer with a kernel, as
// pinbench's first_gpu_use does for such variants. The steps are the driver path's: a context
// and a 64 MiB copy target first, then cudaMemGetInfo's free before the allocation, after it,
// after first use (chunked H2D copies on the legacy stream) and after freeing. Prints
//   {"after_alloc": B, "after_use": B, "residual": B}
// (bytes of device memory taken, against the free before the allocation); exit 2 on bad
// arguments, 3 when a CUDA call fails, 4 when this driver cannot do the variant.
#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>

namespace {

constexpr std::size_t kChunk = std::size_t{64} << 20;
constexpr std::size_t kPage = 4096;

__global__ void read_all(const unsigned int* words, std::size_t n, unsigned long long* sum) {
    unsigned long long local = 0;
    for (std::size_t i = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; i < n;
         i += std::size_t{blockDim.x} * gridDim.x) {
        local += words[i];
    }
    atomicAdd(sum, local);
}

void check(cudaError_t e, const char* what) {
    if (e == cudaSuccess) return;
    std::fprintf(stderr, "runtime_pin_cost: %s: %s\n", what, cudaGetErrorName(e));
    std::exit(3);
}
void check(CUresult r, const char* what) {
    if (r == CUDA_SUCCESS) return;
    const char* name = "?";
    cuGetErrorName(r, &name);
    std::fprintf(stderr, "runtime_pin_cost: %s: %s\n", what, name);
    std::exit(r == CUDA_ERROR_NOT_SUPPORTED ? 4 : 3);
}

long long free_now() {
    std::size_t free = 0, total = 0;
    check(cudaMemGetInfo(&free, &total), "cudaMemGetInfo");
    return static_cast<long long>(free);
}

bool has(const std::string& api, const char* flag) {
    const auto colon = api.find(':');
    if (colon == std::string::npos) return false;
    const std::string flags = "+" + api.substr(colon + 1) + "+";
    return flags.find("+" + std::string(flag) + "+") != std::string::npos;
}

// One allocation through the runtime (or, for VMM, the driver API a runtime program calls).
struct Allocation {
    std::string api;
    std::size_t bytes = 0;
    void* host = nullptr;
    void* device = nullptr;
    CUmemGenericAllocationHandle handle = 0;
    CUdeviceptr address = 0;
    std::size_t mapped = 0;
    cudaMemPool_t pool = nullptr;
    cudaStream_t stream = nullptr;

    void allocate() {
        const std::string family = api.substr(0, api.find(':'));
        if (family == "pageable" || family == "cudaHostRegister") {
            host = ::operator new (bytes, std::align_val_t{kPage});
            auto* p = static_cast<unsigned char*>(host);
            for (std::size_t off = 0; off < bytes; off += kPage) p[off] = 1;
            p[bytes - 1] = 1;
            if (family == "cudaHostRegister") {
                unsigned flags = cudaHostRegisterDefault;
                if (has(api, "portable")) flags |= cudaHostRegisterPortable;
                if (has(api, "mapped")) flags |= cudaHostRegisterMapped;
                check(cudaHostRegister(host, bytes, flags), "cudaHostRegister");
            }
        } else if (family == "cudaMallocHost") {
            check(cudaMallocHost(&host, bytes), "cudaMallocHost");
            // Mapped by default under unified addressing, as pinbench's driver path reads it
            // (cuMemHostAlloc flags 0, then cuMemHostGetDevicePointer).
            check(cudaHostGetDevicePointer(&device, host, 0), "cudaHostGetDevicePointer");
        } else if (family == "cudaHostAlloc") {
            unsigned flags = cudaHostAllocDefault;
            if (has(api, "portable")) flags |= cudaHostAllocPortable;
            if (has(api, "mapped")) flags |= cudaHostAllocMapped;
            if (has(api, "write_combined")) flags |= cudaHostAllocWriteCombined;
            check(cudaHostAlloc(&host, bytes, flags), "cudaHostAlloc");
        } else if (api == "cuMemCreate:host") {
            CUmemAllocationProp prop{};
            prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
            prop.location.type = CU_MEM_LOCATION_TYPE_HOST;
            std::size_t granularity = 0;
            check(cuMemGetAllocationGranularity(&granularity, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM),
                  "cuMemGetAllocationGranularity");
            mapped = (bytes + granularity - 1) / granularity * granularity;
            check(cuMemCreate(&handle, mapped, &prop, 0), "cuMemCreate");
            check(cuMemAddressReserve(&address, mapped, granularity, 0, 0), "cuMemAddressReserve");
            check(cuMemMap(address, mapped, 0, handle, 0), "cuMemMap");
            CUmemAccessDesc access[2]{};
            access[0].location.type = CU_MEM_LOCATION_TYPE_DEVICE;
            access[0].location.id = 0;
            access[0].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            access[1].location = prop.location;
            access[1].flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            check(cuMemSetAccess(address, mapped, access, 2), "cuMemSetAccess");
            host = device = reinterpret_cast<void*>(address);
        } else if (api == "cudaMallocFromPoolAsync:host") {
            cudaMemPoolProps props{};
            props.allocType = cudaMemAllocationTypePinned;
            props.handleTypes = cudaMemHandleTypeNone;
            props.location.type = cudaMemLocationTypeHost;
            const cudaError_t created = cudaMemPoolCreate(&pool, &props);
            if (created == cudaErrorNotSupported) std::exit(4);
            check(created, "cudaMemPoolCreate");
            cudaMemAccessDesc access{};
            access.location.type = cudaMemLocationTypeDevice;
            access.location.id = 0;
            access.flags = cudaMemAccessFlagsProtReadWrite;
            check(cudaMemPoolSetAccess(pool, &access, 1), "cudaMemPoolSetAccess");
            check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreateWithFlags");
            check(cudaMallocFromPoolAsync(&host, bytes, pool, stream), "cudaMallocFromPoolAsync");
            check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
            device = host;
        } else {
            std::fprintf(stderr, "runtime_pin_cost: unknown API %s\n", api.c_str());
            std::exit(2);
        }
        if (device == nullptr && (has(api, "mapped"))) {
            check(cudaHostGetDevicePointer(&device, host, 0), "cudaHostGetDevicePointer");
        }
    }

    void release() {
        const std::string family = api.substr(0, api.find(':'));
        if (family == "pageable" || family == "cudaHostRegister") {
            if (family == "cudaHostRegister") check(cudaHostUnregister(host), "cudaHostUnregister");
            ::operator delete (host, std::align_val_t{kPage});
        } else if (family == "cudaMallocHost" || family == "cudaHostAlloc") {
            check(cudaFreeHost(host), "cudaFreeHost");
        } else if (family == "cuMemCreate") {
            check(cuMemUnmap(address, mapped), "cuMemUnmap");
            check(cuMemAddressFree(address, mapped), "cuMemAddressFree");
            check(cuMemRelease(handle), "cuMemRelease");
        } else {
            check(cudaFreeAsync(host, stream), "cudaFreeAsync");
            check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
            check(cudaMemPoolDestroy(pool), "cudaMemPoolDestroy");
            check(cudaStreamDestroy(stream), "cudaStreamDestroy");
        }
    }
};

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: runtime_pin_cost API BYTES DEVICE_POINTER(0|1)\n");
        return 2;
    }
    Allocation a;
    a.api = argv[1];
    a.bytes = std::strtoull(argv[2], nullptr, 10);
    const bool read_through_device_pointer = std::string(argv[3]) == "1";
    check(cudaSetDevice(0), "cudaSetDevice");
    check(cudaFree(nullptr), "cudaFree(0)");
    // The workspace and the kernel first, as DeviceContext and GpuUseWorkspace do.
    void* target = nullptr;
    unsigned long long* sum = nullptr;
    check(cudaMalloc(&target, kChunk), "cudaMalloc");
    check(cudaMemset(target, 0, kChunk), "cudaMemset");
    check(cudaMalloc(reinterpret_cast<void**>(&sum), sizeof *sum), "cudaMalloc");
    check(cudaMemset(sum, 0, sizeof *sum), "cudaMemset");
    read_all<<<1024, 256>>>(static_cast<const unsigned int*>(target), 1, sum);
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");

    const long long baseline = free_now();
    a.allocate();
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    const long long after_alloc = baseline - free_now();
    for (std::size_t off = 0; off < a.bytes; off += kChunk) {
        const std::size_t n = std::min(kChunk, a.bytes - off);
        check(cudaMemcpyAsync(target, static_cast<unsigned char*>(a.host) + off, n, cudaMemcpyHostToDevice,
                              nullptr),
              "cudaMemcpyAsync");
    }
    check(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
    if (read_through_device_pointer) {
        check(cudaMemsetAsync(sum, 0, sizeof *sum, nullptr), "cudaMemsetAsync");
        read_all<<<1024, 256>>>(static_cast<const unsigned int*>(a.device), a.bytes / 4, sum);
        check(cudaGetLastError(), "read_all");
        check(cudaStreamSynchronize(nullptr), "cudaStreamSynchronize");
    }
    const long long after_use = baseline - free_now();
    a.release();
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    const long long residual = baseline - free_now();
    std::printf("{\"after_alloc\": %lld, \"after_use\": %lld, \"residual\": %lld}\n", after_alloc, after_use,
                residual);
    return 0;
}
