// Independent check of pinbench's max_pinnable with free_target (issue 20): fill device 0 with
// cudaMalloc until about FREE_MIB are left (cudaMemGetInfo), then cudaMallocHost GIB GiB and
// copy 1 MiB from it. Prints what it saw. Not part of pinbench (no shared code).
//   nvcc -O2 -o pin_when_full pin_when_full.cu && ./pin_when_full FREE_MIB GIB
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    const size_t want_free = std::strtoull(argc > 1 ? argv[1] : "1024", nullptr, 10) << 20;
    const size_t pin = std::strtoull(argc > 2 ? argv[2] : "8", nullptr, 10) << 30;
    size_t free = 0, total = 0;
    cudaFree(nullptr);
    cudaMemGetInfo(&free, &total);
    std::vector<void*> fill;
    for (size_t chunk = 1ull << 30; chunk >= (2ull << 20); chunk /= 2) {
        while (free > want_free + chunk) {
            void* p = nullptr;
            if (cudaMalloc(&p, chunk) != cudaSuccess) {
                cudaGetLastError();
                break;
            }
            cudaMemset(p, 1, chunk);
            fill.push_back(p);
            cudaMemGetInfo(&free, &total);
        }
    }
    cudaDeviceSynchronize();
    cudaMemGetInfo(&free, &total);
    std::printf("filled %zu chunks; free %.1f MiB of %.1f MiB\n", fill.size(), free / 1048576.0,
                total / 1048576.0);
    void* host = nullptr;
    cudaError_t e = cudaMallocHost(&host, pin);
    std::printf("cudaMallocHost(%zu GiB): %s\n", pin >> 30, cudaGetErrorName(e));
    if (e == cudaSuccess) {
        void* dev = fill.empty() ? nullptr : fill.back();
        if (dev) e = cudaMemcpy(dev, host, 1 << 20, cudaMemcpyHostToDevice);
        std::printf("copy 1 MiB to the device: %s\n", cudaGetErrorName(e));
        cudaMemGetInfo(&free, &total);
        std::printf("free while holding it: %.1f MiB\n", free / 1048576.0);
        cudaFreeHost(host);
    }
    for (void* p : fill) cudaFree(p);
    return e == cudaSuccess ? 0 : 1;
}
