#!/usr/bin/env bash
# First contact of every scenario kind with a GPU, run from the repository root on the H200:
#   bash results/h200-kinds-smoke/scripts/device-call.sh OUT_DIR
set -uo pipefail
out=${1:?OUT_DIR}
mkdir -p "$out"
t0=$SECONDS
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/configure.log" 2>&1 &&
  cmake --build --preset linux -j16 --target pinbench >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "build: $((SECONDS - t0)) s"
nvidia-smi -L
grep -E "HugePages_(Total|Free)|Hugepagesize|MemTotal|MemFree" /proc/meminfo
cat /sys/kernel/mm/transparent_hugepage/enabled
t1=$SECONDS
build/linux/harness/pinbench run results/h200-kinds-smoke/smoke.yaml -o "$out/results.json" >"$out/progress.log" 2>&1
echo "smoke: exit $? after $((SECONDS - t1)) s"
grep -E "WAIVED|failed|timeout|CONTROL" "$out/progress.log" | head -40
