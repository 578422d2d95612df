// pinbench_neighbour: another GPU process for testing pinbench beside it (docs/disturbance.md).
//   pinbench_neighbour device-burst [--seconds S] [--seed N]  bursts (1-3 s) of cudaMalloc/cudaFree
//       of 2-256 MiB every 20-300 ms, with quiet gaps of 2-5 s between bursts
//   pinbench_neighbour persistent [--seconds S] [--seed N]    cudaMalloc of 16-256 MiB, freed
//       100-400 ms later, again and again with no quiet gap (a GPU too busy to measure)
//   pinbench_neighbour pin-host [--seconds S] [--seed N]      cudaMallocHost/cudaFreeHost of 1-4 GiB,
//       held 0.5-3 s, gaps of 1-4 s
//   pinbench_neighbour steady [--bytes GIB] [--seconds S]     holds GIB GiB of device memory and runs
//       kernels over it, never changing its size
// Every event goes to stderr with its time; it stops after S seconds (default 600) or on SIGTERM.
#include <cuda_runtime.h>
#ifdef _WIN32
#include <process.h>
#define getpid _getpid
#else
#include <unistd.h>
#endif

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace {

std::atomic<bool> stop{false};
void on_signal(int) { stop = true; }

void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        std::fprintf(stderr, "neighbour: %s: %s\n", what, cudaGetErrorString(e));
        std::exit(1);
    }
}

using Clock = std::chrono::steady_clock;
const Clock::time_point t0 = Clock::now();
double now_s() { return std::chrono::duration<double>(Clock::now() - t0).count(); }

void sleep_ms(long long ms) {
    const auto until = Clock::now() + std::chrono::milliseconds(ms);
    while (!stop && Clock::now() < until) std::this_thread::sleep_for(std::chrono::milliseconds(5));
}

__global__ void touch(unsigned* p, size_t n, unsigned v) {
    for (size_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
        p[i] += v;
}

struct DeviceBlock {  // RAII over cudaMalloc
    void* p = nullptr;
    size_t bytes = 0;
    explicit DeviceBlock(size_t b) : bytes(b) {
        check(cudaMalloc(&p, b), "cudaMalloc");
        check(cudaMemset(p, 0, b), "cudaMemset");
    }
    ~DeviceBlock() { cudaFree(p); }
    DeviceBlock(const DeviceBlock&) = delete;
    DeviceBlock& operator=(const DeviceBlock&) = delete;
};

struct PinnedBlock {  // RAII over cudaMallocHost
    void* p = nullptr;
    explicit PinnedBlock(size_t b) {
        check(cudaMallocHost(&p, b), "cudaMallocHost");
        std::memset(p, 1, b);
    }
    ~PinnedBlock() { cudaFreeHost(p); }
    PinnedBlock(const PinnedBlock&) = delete;
    PinnedBlock& operator=(const PinnedBlock&) = delete;
};

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0) {
        std::fprintf(
            stderr,
            "usage: pinbench_neighbour device-burst|persistent|pin-host|steady [--seconds S] [--seed N] "
            "[--bytes GIB]\n");
        return 2;
    }
    const std::string mode = argv[1];
    double seconds = 600;
    unsigned seed = 1;
    size_t steady_gib = 20;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--seconds"))
            seconds = std::atof(argv[i + 1]);
        else if (!std::strcmp(argv[i], "--seed"))
            seed = static_cast<unsigned>(std::atoi(argv[i + 1]));
        else if (!std::strcmp(argv[i], "--bytes"))
            steady_gib = static_cast<size_t>(std::atoll(argv[i + 1]));
    }
    std::signal(SIGTERM, on_signal);
    std::signal(SIGINT, on_signal);
    std::mt19937 rng(seed);
    auto uniform = [&](long long lo, long long hi) {
        return std::uniform_int_distribution<long long>(lo, hi)(rng);
    };
    check(cudaFree(nullptr), "context");
    std::fprintf(stderr, "%.3f neighbour %s pid %d ready\n", now_s(), mode.c_str(),
                 static_cast<int>(getpid()));
    const size_t mib = size_t{1} << 20;
    if (mode == "device-burst") {
        std::vector<DeviceBlock*> held;
        while (!stop && now_s() < seconds) {
            const double burst_end = now_s() + static_cast<double>(uniform(1000, 3000)) / 1000;
            while (!stop && now_s() < burst_end) {
                if (held.empty() || uniform(0, 1) == 0) {
                    const size_t b = static_cast<size_t>(uniform(2, 256)) * mib;
                    held.push_back(new DeviceBlock(b));
                    std::fprintf(stderr, "%.3f alloc %zu MiB\n", now_s(), b / mib);
                } else {
                    std::fprintf(stderr, "%.3f free %zu MiB\n", now_s(), held.back()->bytes / mib);
                    delete held.back();
                    held.pop_back();
                }
                sleep_ms(uniform(20, 300));
            }
            for (auto* b : held) delete b;
            held.clear();
            std::fprintf(stderr, "%.3f quiet\n", now_s());
            sleep_ms(uniform(2000, 5000));
        }
    } else if (mode == "persistent") {
        while (!stop && now_s() < seconds) {
            const size_t b = static_cast<size_t>(uniform(16, 256)) * mib;
            {
                DeviceBlock block(b);
                std::fprintf(stderr, "%.3f alloc %zu MiB\n", now_s(), b / mib);
                sleep_ms(uniform(100, 400));
            }
            std::fprintf(stderr, "%.3f free\n", now_s());
            sleep_ms(uniform(100, 400));
        }
    } else if (mode == "pin-host") {
        while (!stop && now_s() < seconds) {
            const size_t b = static_cast<size_t>(uniform(1, 4)) << 30;
            {
                PinnedBlock pinned(b);
                std::fprintf(stderr, "%.3f pinned %zu GiB\n", now_s(), b >> 30);
                sleep_ms(uniform(500, 3000));
            }
            std::fprintf(stderr, "%.3f unpinned\n", now_s());
            sleep_ms(uniform(1000, 4000));
        }
    } else if (mode == "steady") {
        DeviceBlock block(steady_gib << 30);
        std::fprintf(stderr, "%.3f holding %zu GiB, running kernels\n", now_s(), steady_gib);
        unsigned v = 1;
        while (!stop && now_s() < seconds) {
            touch<<<264, 256>>>(static_cast<unsigned*>(block.p), block.bytes / sizeof(unsigned), v++);
            check(cudaDeviceSynchronize(), "kernel");
            sleep_ms(10);
        }
    } else {
        std::fprintf(stderr, "neighbour: unknown mode '%s'\n", mode.c_str());
        return 2;
    }
    std::fprintf(stderr, "%.3f neighbour done\n", now_s());
    return 0;
}
