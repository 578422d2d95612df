#!/usr/bin/env bash
# A build without nvcc (issue 31): configures the ci-no-nvcc preset with every directory holding
# nvcc taken off the PATH (and CUDACXX, CUDA_PATH, CUDAToolkit_ROOT unset), builds pinbench, the
# trace injection library and the CPU tests from the CUDA header wheels in .deps/cuda12, checks
# that no CUDA library is linked, and runs the tests of a machine without the driver. ci/test.sh
# runs it; the compiler cache makes a second run take seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/cache_dirs.sh
pinbench_ccache_env "$PWD"
jobs="${PINBENCH_JOBS:-2}"
build=build/ci-no-nvcc

path_without_nvcc="$(tr ':' '\n' <<<"$PATH" | while IFS= read -r dir; do
    [[ -n $dir && ! -x $dir/nvcc ]] && printf '%s\n' "$dir"; done | paste -sd:)"
without_nvcc() { env -u CUDACXX -u CUDA_PATH -u CUDAToolkit_ROOT PATH="$path_without_nvcc" "$@"; }
fail() { echo "check_no_nvcc: $*" >&2; exit 1; }

if without_nvcc bash -c 'command -v nvcc' >/dev/null; then fail "nvcc is still on the reduced PATH"; fi
without_nvcc cmake --preset ci-no-nvcc >"$build.configure.log" 2>&1 ||
    { tail -30 "$build.configure.log" >&2; fail "configuring without nvcc failed"; }
grep -q "nvcc not found" "$build.configure.log" || fail "CMake found a CUDA compiler (see $build.configure.log)"
without_nvcc cmake --build --preset ci-no-nvcc -j"$jobs" --target pinbench pinbench_trace_inject pinbench_cpu_tests \
    >"$build.log" 2>&1 || { grep -E 'error|Error' "$build.log" | head -30 >&2; fail "building without nvcc failed"; }
for binary in "$build/harness/pinbench" "$build/harness/libpinbench_trace_inject.so"; do
    [[ -f $binary ]] || fail "$binary was not built"
    if readelf -d "$binary" | grep NEEDED | grep -iE 'cuda|cupti|nvidia|nvml'; then
        fail "$binary links a CUDA library"
    fi
done
without_nvcc "$build/harness/tests/pinbench_cpu_tests" --gtest_filter='NoDriver.*:ApiVariant.*' --gtest_brief=1
echo "check_no_nvcc: pinbench and the trace injection library built without nvcc, no CUDA library linked"
