// NVML as WSL2 gives it: no process lists. An LD_PRELOAD library for Linux test runs
// on a real GPU: every NVML entry point that lists processes or their memory or utilization
// answers NVML_ERROR_NOT_SUPPORTED, as under WSL2; everything else is the real NVML.
//
//   LD_PRELOAD=build/linux/tools/libpinbench_nvml_no_process_lists.so pinbench doctor
//
// pinbench loads NVML with dlopen and looks every entry point up with dlsym on that handle, which
// LD_PRELOAD alone does not reach; so this library interposes dlsym itself: a refused name gets
// a stub, any other name goes to the C library's dlsym. Every stub returns NOT_SUPPORTED without
// reading its arguments (all of these return nvmlReturn_t; on x86-64 and aarch64 a callee that
// ignores its arguments may be called with any). With NVML_NO_PROCESS_LISTS_SAY=1 the first
// refusal of each name is said on stderr once; by default nothing is, since a measuring child's
// stderr shares the pipe of its handshake with the parent (a line before "ready" failed the
// cross-check control on the H200); `pinbench doctor`'s "watch: device level only" shows that the
// shim is in front. Not part of pinbench.
// Limit: a forwarded dlsym(RTLD_NEXT, ...) resolves relative to this library, not its caller; a
// program that interposes functions itself would be misled (pinbench does not use RTLD_NEXT).
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

enum { NVML_ERROR_NOT_SUPPORTED = 3 };

static int not_supported(void) { return NVML_ERROR_NOT_SUPPORTED; }

static const char* const refused[] = {
    "nvmlDeviceGetComputeRunningProcesses",
    "nvmlDeviceGetComputeRunningProcesses_v2",
    "nvmlDeviceGetComputeRunningProcesses_v3",
    "nvmlDeviceGetGraphicsRunningProcesses",
    "nvmlDeviceGetGraphicsRunningProcesses_v2",
    "nvmlDeviceGetGraphicsRunningProcesses_v3",
    "nvmlDeviceGetMPSComputeRunningProcesses",
    "nvmlDeviceGetMPSComputeRunningProcesses_v2",
    "nvmlDeviceGetMPSComputeRunningProcesses_v3",
    "nvmlDeviceGetProcessUtilization",
    "nvmlDeviceGetProcessesUtilizationInfo",
    "nvmlDeviceGetRunningProcessDetailList",
    "nvmlDeviceGetAccountingPids",
    "nvmlDeviceGetAccountingStats",
};
static int said[sizeof refused / sizeof refused[0]];  // NOLINT: one flag per name, this test tool only

using dlsym_fn = void* (*)(void*, const char*);

static dlsym_fn real_dlsym(void) {
    static dlsym_fn real = nullptr;
    if (!real) {
        /* glibc 2.34 moved dlsym into libc (GLIBC_2.34); before, libdl's GLIBC_2.2.5 (x86-64) or
         * GLIBC_2.17 (aarch64). */
        static const char* const versions[] = {"GLIBC_2.34", "GLIBC_2.2.5", "GLIBC_2.17"};
        for (size_t i = 0; !real && i < sizeof versions / sizeof versions[0]; ++i) {
            real = reinterpret_cast<dlsym_fn>(dlvsym(RTLD_NEXT, "dlsym", versions[i]));
        }
    }
    return real;
}

// Declared noexcept as glibc declares it (__THROW).
extern "C" void* dlsym(void* __restrict handle, const char* __restrict name) noexcept {
    if (std::strncmp(name, "nvml", 4) == 0) {
        for (size_t i = 0; i < sizeof refused / sizeof refused[0]; ++i) {
            if (std::strcmp(name, refused[i]) != 0) continue;
            if (!said[i] && std::getenv("NVML_NO_PROCESS_LISTS_SAY") != nullptr) {
                said[i] = 1;
                std::fprintf(stderr, "nvml_no_process_lists: %s answers NOT_SUPPORTED (as under WSL2)\n",
                             name);
            }
            return reinterpret_cast<void*>(&not_supported);
        }
    }
    dlsym_fn real = real_dlsym();
    return real ? real(handle, name) : nullptr;
}
