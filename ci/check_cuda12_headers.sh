#!/usr/bin/env bash
# Compiles every host source that includes CUDA (runtime, driver, CUPTI or NVML) headers against the CUDA
# 12.9 headers, so an API newer than 12.x cannot creep in unnoticed: our users build with 12.x
# so that pre-580 drivers can run the tool, while CI only has nvcc 13.0.
set -euo pipefail
cd "$(dirname "$0")/.."
inc=.deps/cuda12/nvidia
[[ -f $inc/cuda_runtime/include/cuda_runtime_api.h ]] || { echo "run ci/setup-debian.sh first" >&2; exit 2; }
grep -qE "define CUDART_VERSION +1209" "$inc/cuda_runtime/include/cuda_runtime_api.h" || { echo "not the 12.9 headers" >&2; exit 2; }
mapfile -t sources < <(grep -rlE '#include <(cuda[a-z_]*\.h|nvml\.h)>|#include "(pinbench/)?cuda/' --include='*.cpp' harness benchmarks | sort)
((${#sources[@]})) || { echo "no sources found" >&2; exit 2; }
status=0
for f in "${sources[@]}"; do
  if g++ -std=c++20 -fsyntax-only -Wall -Iharness/include -Iharness/src -Ibenchmarks \
       -isystem "$inc/cuda_runtime/include" -isystem "$inc/nvml_dev/include" -isystem "$inc/cuda_cupti/include" "$f"; then
    echo "cuda 12.9 headers: ok   $f"
  else
    echo "cuda 12.9 headers: FAIL $f"; status=1
  fi
done
exit $status
