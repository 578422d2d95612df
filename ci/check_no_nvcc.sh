#!/usr/bin/env bash
# A build without nvcc (docs/driver-api.md): configures the ci-no-nvcc preset with every directory holding
# nvcc taken off the PATH (and CUDACXX, CUDA_PATH, CUDAToolkit_ROOT unset), builds pinbench, the
# trace injection library and the CPU tests from the CUDA header wheels in .deps/cuda12, checks
# that no CUDA library is linked and that every CUDA header came from those wheels, and runs the
# tests of a machine without the driver. ci/test.sh
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
    [[ -f $binary ]] || fail "$binary was not built (the injection library needs the crt headers: ci/setup-debian.sh)"
    if readelf -d "$binary" | grep NEEDED | grep -iE 'cuda|cupti|nvidia|nvml'; then
        fail "$binary links a CUDA library"
    fi
done
# Every CUDA, CUPTI and NVML header of the CUDA core and the injection library comes from the
# header wheels: none from a toolkit reached through the compiler's own search path (this CI
# machine links the 13.0 toolkit's headers into /usr/local/include).
python3 - "$build/compile_commands.json" "$PWD" <<'PY'
import json, os, shlex, subprocess, sys
root = sys.argv[2]
leaks = []
for entry in json.load(open(sys.argv[1])):
    if "/harness/src/cuda/" not in entry["file"]:
        continue
    args = [a for a in shlex.split(entry["command"]) if not a.endswith("ccache")]
    out = args.index("-o")
    args[out : out + 2] = ["-H", "-fsyntax-only"]
    headers = subprocess.run(args, cwd=entry["directory"], capture_output=True, text=True).stderr
    for line in headers.splitlines():
        path = os.path.realpath(os.path.join(entry["directory"], line.lstrip(". ")))
        wheels = os.path.realpath(os.path.join(root, ".deps/cuda12"))
        if path.startswith(wheels) or (path.startswith(root) and "/.deps/" not in path):
            continue
        if line.startswith(".") and any(k in path for k in ("cuda", "cupti", "nvml", "crt/")):
            leaks.append(f"{entry['file']}: {path}")
if leaks:
    sys.exit("check_no_nvcc: CUDA headers from outside .deps/cuda12:\n  " + "\n  ".join(sorted(set(leaks))[:20]))
PY
without_nvcc "$build/harness/tests/pinbench_cpu_tests" --gtest_filter='NoDriver.*:ApiVariant.*' --gtest_brief=1
echo "check_no_nvcc: pinbench and the trace injection library built without nvcc, no CUDA library linked"
