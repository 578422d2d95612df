// A small CUDA program for `pinbench trace` against the test doubles (docs/test-double.md): it
// pins host memory through the driver API (two cuMemHostAlloc, one cuMemHostRegister), frees it
// all, and notes what it asked and got in $PINBENCH_TRACE_NOTES, so a test can hold the trace
// against what the program did. Exits 1, naming the call, when a call fails.
#include <cuda.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

namespace {

void check(CUresult r, const char* call) {
    if (r == CUDA_SUCCESS) return;
    std::fprintf(stderr, "traced_program: %s failed (CUresult %d)\n", call, static_cast<int>(r));
    std::exit(1);
}

struct Pinned {
    const char* api;
    std::size_t bytes;
    unsigned flags;
    void* address;
};

std::string notes_line(const std::vector<Pinned>& pinned) {
    std::string line = "{\"traced_program\": [";
    for (std::size_t i = 0; i < pinned.size(); ++i) {
        char item[200];
        std::snprintf(item, sizeof item,
                      "%s{\"api\": \"%s\", \"bytes\": %zu, \"flags\": %u, \"address\": %llu}",
                      i == 0 ? "" : ", ", pinned[i].api, pinned[i].bytes, pinned[i].flags,
                      static_cast<unsigned long long>(reinterpret_cast<std::uintptr_t>(pinned[i].address)));
        line += item;
    }
    return line + "]}\n";
}

}  // namespace

int main() {
    constexpr std::size_t mib = std::size_t{1} << 20;
    check(cuInit(0), "cuInit");
    CUdevice device = 0;
    check(cuDeviceGet(&device, 0), "cuDeviceGet");
    CUcontext context = nullptr;
    check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(context), "cuCtxSetCurrent");

    std::vector<Pinned> pinned = {{"cuMemHostAlloc", 4 * mib, 0, nullptr},
                                  {"cuMemHostAlloc", 2 * mib, CU_MEMHOSTALLOC_PORTABLE, nullptr}};
    for (Pinned& p : pinned) {
        check(cuMemHostAlloc(&p.address, p.bytes, p.flags), "cuMemHostAlloc");
        std::memset(p.address, 1, p.bytes);
    }
    std::vector<char> pageable(3 * mib);
    check(cuMemHostRegister(pageable.data(), pageable.size(), 0), "cuMemHostRegister");
    pinned.push_back({"cuMemHostRegister_v2", pageable.size(), 0, pageable.data()});

    check(cuMemHostUnregister(pageable.data()), "cuMemHostUnregister");
    for (std::size_t i = 0; i < 2; ++i) check(cuMemFreeHost(pinned[i].address), "cuMemFreeHost");
    check(cuDevicePrimaryCtxRelease(device), "cuDevicePrimaryCtxRelease");

    if (const char* notes = std::getenv("PINBENCH_TRACE_NOTES"); notes != nullptr && *notes != '\0') {
        std::ofstream(notes, std::ios::app) << notes_line(pinned);
    }
    std::printf("traced_program: %zu pinning calls, all freed\n", pinned.size());
    return 0;
}
