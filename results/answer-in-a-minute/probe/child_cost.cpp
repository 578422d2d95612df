// An independent probe, not part of pinbench: where a fresh process's fixed time goes on the way
// to a CUDA context and back out (dlopen, cuInit, context, destroy, exit), and whether a process
// that has only initialised the driver (no context) moves device memory or shows in NVML.
//   child_cost series N        N sequential children in "time" mode, one line each
//   child_cost idle-check      NVML before, beside an initialised-only process, after
//   child_cost beside N        N "time" children with an initialised-only process waiting
// Built with g++ against cuda.h only; libcuda and NVML are opened at run time.
#include <cuda.h>
#include <dlfcn.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

extern char** environ;

static long long now_ns() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

template <class F>
static F sym(void* lib, const char* name) {
    void* p = dlsym(lib, name);
    if (!p) {
        std::fprintf(stderr, "missing %s\n", name);
        std::exit(2);
    }
    return reinterpret_cast<F>(p);
}

struct NvmlMem {
    unsigned long long total, free, used;
};
struct Nvml {
    void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    void* dev = nullptr;
    int (*mem)(void*, NvmlMem*) = nullptr;
    int (*procs)(void*, unsigned*, void*) = nullptr;
    Nvml() {
        if (!lib) {
            std::fprintf(stderr, "no NVML\n");
            std::exit(2);
        }
        sym<int (*)()>(lib, "nvmlInit_v2")();
        sym<int (*)(unsigned, void**)>(lib, "nvmlDeviceGetHandleByIndex_v2")(0, &dev);
        mem = sym<int (*)(void*, NvmlMem*)>(lib, "nvmlDeviceGetMemoryInfo");
        procs = sym<int (*)(void*, unsigned*, void*)>(lib, "nvmlDeviceGetComputeRunningProcesses_v3");
    }
    void print(const char* label) {
        NvmlMem m{};
        mem(dev, &m);
        unsigned n = 0;
        procs(dev, &n, nullptr);  // NVML_ERROR_INSUFFICIENT_SIZE with the count, or 0
        std::printf("%s: nvml used %llu free %llu compute processes %u\n", label, m.used, m.free, n);
        std::fflush(stdout);
    }
};

// One child: its own clock marks from main to just before exit.
static int time_child(long long launched) {
    long long t0 = now_ns();
    void* lib = dlopen("libcuda.so.1", RTLD_NOW);
    long long t1 = now_ns();
    auto cuInit_ = sym<CUresult (*)(unsigned)>(lib, "cuInit");
    auto cuDeviceGet_ = sym<CUresult (*)(CUdevice*, int)>(lib, "cuDeviceGet");
    auto cuCtxCreate_ = sym<CUresult (*)(CUcontext*, unsigned, CUdevice)>(lib, "cuCtxCreate_v2");
    auto cuCtxDestroy_ = sym<CUresult (*)(CUcontext)>(lib, "cuCtxDestroy_v2");
    auto cuMemGetInfo_ = sym<CUresult (*)(size_t*, size_t*)>(lib, "cuMemGetInfo_v2");
    if (cuInit_(0) != CUDA_SUCCESS) return 3;
    long long t2 = now_ns();
    CUdevice d;
    cuDeviceGet_(&d, 0);
    CUcontext c;
    if (cuCtxCreate_(&c, 0, d) != CUDA_SUCCESS) return 4;
    size_t free_b = 0, total_b = 0;
    cuMemGetInfo_(&free_b, &total_b);
    long long t3 = now_ns();
    cuCtxDestroy_(c);
    long long t4 = now_ns();
    std::printf(
        "start_ms %.1f dlopen_ms %.1f cuInit_ms %.1f ctx_ms %.1f destroy_ms %.1f free %zu exit_at %lld\n",
        (t0 - launched) / 1e6, (t1 - t0) / 1e6, (t2 - t1) / 1e6, (t3 - t2) / 1e6, (t4 - t3) / 1e6, free_b,
        now_ns());
    std::fflush(stdout);
    return 0;
}

// Initialise the driver (no context), say so, wait for a line on stdin.
static int idle_child() {
    void* lib = dlopen("libcuda.so.1", RTLD_NOW);
    if (sym<CUresult (*)(unsigned)>(lib, "cuInit")(0) != CUDA_SUCCESS) return 3;
    std::printf("ready\n");
    std::fflush(stdout);
    char line[16];
    if (!std::fgets(line, sizeof line, stdin)) return 0;
    return 0;
}

static pid_t spawn(const char* self, const std::string& mode, int* in_fd, int* out_fd) {
    int in[2], out[2];
    pipe(in);
    pipe(out);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_addclose(&fa, in[1]);
    posix_spawn_file_actions_addclose(&fa, out[0]);
    std::string launched = std::to_string(now_ns());
    char* argv[] = {const_cast<char*>(self), const_cast<char*>(mode.c_str()), launched.data(), nullptr};
    pid_t pid;
    posix_spawn(&pid, self, &fa, nullptr, argv, environ);
    close(in[0]);
    close(out[1]);
    *in_fd = in[1];
    *out_fd = out[0];
    return pid;
}

static void run_time_child(const char* self) {
    int in, out;
    pid_t pid = spawn(self, "time", &in, &out);
    char buf[512] = {};
    ssize_t n = read(out, buf, sizeof buf - 1);
    int status;
    waitpid(pid, &status, 0);
    long long reaped = now_ns();
    close(in);
    close(out);
    if (n <= 0) {
        std::printf("child failed, status %d\n", status);
        return;
    }
    long long exit_at = std::atoll(std::strstr(buf, "exit_at ") + 8);
    buf[std::strcspn(buf, "\n")] = 0;
    std::printf("%s exit_ms %.1f\n", buf, (reaped - exit_at) / 1e6);
    std::fflush(stdout);
}

int main(int argc, char** argv) {
    std::string mode = argc > 1 ? argv[1] : "";
    if (mode == "time") return time_child(std::atoll(argv[2]));
    if (mode == "idle") return idle_child();
    int n = argc > 2 ? std::atoi(argv[2]) : 5;
    if (mode == "series") {
        for (int i = 0; i < n; ++i) run_time_child(argv[0]);
        return 0;
    }
    if (mode == "idle-check" || mode == "beside") {
        Nvml nvml;
        nvml.print("before");
        int in, out;
        long long t = now_ns();
        pid_t pid = spawn(argv[0], "idle", &in, &out);
        char buf[16] = {};
        read(out, buf, sizeof buf - 1);
        std::printf("idle process ready after %.1f ms (start, dlopen, cuInit)\n", (now_ns() - t) / 1e6);
        usleep(300000);
        nvml.print("beside an initialised-only process");
        if (mode == "beside")
            for (int i = 0; i < n; ++i) run_time_child(argv[0]);
        write(in, "bye\n", 4);
        int status;
        waitpid(pid, &status, 0);
        usleep(300000);
        nvml.print("after it exited");
        return 0;
    }
    std::fprintf(stderr, "usage: child_cost series N | idle-check | beside N\n");
    return 2;
}
