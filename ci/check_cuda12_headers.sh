#!/usr/bin/env bash
# Compiles every host source that includes CUDA (runtime, driver, CUPTI or NVML) headers against the CUDA
# 12.9 headers, so an API newer than 12.x cannot creep in unnoticed: our users build with 12.x
# so that pre-580 drivers can run the tool, while CI only has nvcc 13.0.
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
mapfile -t sources < <(grep -rlE '#include <(cuda[a-z_]*\.h|nvml\.h)>|#include "(pinbench/)?cuda/' --include='*.cpp' harness benchmarks | sort)
((${#sources[@]})) || { echo "no sources found" >&2; exit 2; }
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
export scratch inc
if command -v ccache >/dev/null; then
  export compile="ccache g++ -O0 -c -o"
else
  export compile="g++ -fsyntax-only -o"
fi
printf '%s\n' "${sources[@]}" | xargs -d '\n' -P "${PINBENCH_JOBS:-2}" -I{} bash -c '
  f=$1
  if $compile "$scratch/$(echo "$f" | tr / _).o" -std=c++20 -Wall -Iharness/include -Iharness/src -Ibenchmarks \
       -isystem "$inc/cuda_runtime/include" -isystem "$inc/nvml_dev/include" -isystem "$inc/cuda_cupti/include" "$f"; then
    echo "cuda 12.9 headers: ok   $f"
  else
    echo "cuda 12.9 headers: FAIL $f"; exit 1
  fi' _ {}
