#!/usr/bin/env bash
# Compiles every host source that includes CUDA (runtime, driver, CUPTI or NVML) headers against the CUDA
# 12.9 headers, so an API newer than 12.x cannot creep in unnoticed: the driver table names its
# entry points by the cudaTypedefs.h types of both 12.x and 13.0 (docs/driver-api.md), and the
# benchmarks are built by users' 12.x toolkits, while CI has the 13.0 toolkit.
# The compiles run PINBENCH_JOBS at a time (default 2) and through ccache where it is installed
# (ci/cache_dirs.sh: a compile at -O0 into a scratch object instead of -fsyntax-only, so that an
# unchanged source with unchanged headers is a cache hit; the errors are the same).
set -euo pipefail
cd "$(dirname "$0")/.."
. ci/cache_dirs.sh
pinbench_ccache_env "$PWD"
inc=.deps/cuda12/nvidia
[[ -f $inc/cuda_runtime/include/cuda_runtime_api.h ]] || { echo "run ci/setup-debian.sh first" >&2; exit 2; }
grep -qE "define CUDART_VERSION +1209" "$inc/cuda_runtime/include/cuda_runtime_api.h" || { echo "not the 12.9 headers" >&2; exit 2; }
# The test-double driver (harness/tests/doubles) is left out: it is always built against these
# headers (.deps/cuda12, docs/test-double.md), and its tests need the build's definitions.
# The sources that include them: directly, or through the public headers that do
# (pinbench/cuda/cuda_check.hpp, cuda_handles.hpp) or the CUDA core's own (harness/src/cuda/); the
# rest of pinbench/cuda/ declares the core's API without CUDA types.
mapfile -t sources < <(grep -rlE --exclude-dir=doubles '#include <(cuda[a-z_]*\.h|nvml\.h)>|#include "(pinbench/cuda/cuda_|cuda/)' --include='*.cpp' harness benchmarks | sort)
((${#sources[@]})) || { echo "no sources found" >&2; exit 2; }
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
# The kernels' PTX header, as harness/CMakeLists.txt generates it.
mkdir -p "$scratch/generated/cuda"
{ echo '#pragma once'; echo 'namespace pinbench::cuda {'; printf 'inline constexpr char kKernelsPtx[] = R"ptx('
  cat harness/src/cuda/kernels.ptx; echo ')ptx";'; echo '}'; } >"$scratch/generated/cuda/kernels_ptx.hpp"
# The crt headers cupti.h reaches (ci/setup-debian.sh keeps them from the nvcc wheel); where they
# are missing the compiler's search path gives whatever it has.
crt=""
[[ -d $inc/cuda_nvcc/include/crt ]] && crt="-isystem $inc/cuda_nvcc/include"
export scratch inc crt
if command -v ccache >/dev/null; then
  export compile="ccache g++ -O0 -c -o"
else
  export compile="g++ -fsyntax-only -o"
fi
printf '%s\n' "${sources[@]}" | xargs -d '\n' -P "${PINBENCH_JOBS:-2}" -I{} bash -c '
  f=$1
  if $compile "$scratch/$(echo "$f" | tr / _).o" -std=c++20 -Wall -Iharness/include -Iharness/src -Ibenchmarks -I"$scratch/generated" \
       -isystem "$inc/cuda_runtime/include" -isystem "$inc/nvml_dev/include" -isystem "$inc/cuda_cupti/include" \
       $crt "$f"; then
    echo "cuda 12.9 headers: ok   $f"
  else
    echo "cuda 12.9 headers: FAIL $f"; exit 1
  fi' _ {}
