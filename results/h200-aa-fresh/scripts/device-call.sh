#!/usr/bin/env bash
# Issue 15's A/A check: one more real night of scenarios/nightly.yaml on one H200 (our Linux
# control, not the users' Windows), taken as the first command after a fresh machine start.
# From the repository root (carry .deps/xxhash):  bash results/h200-aa-fresh/scripts/device-call.sh OUT_DIR
set -uo pipefail
out=${1:?OUT_DIR}
mkdir -p "$out"
t0=$SECONDS
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real -DPINBENCH_BUILD_TESTS=OFF -DPINBENCH_BUILD_BENCHMARKS=OFF >"$out/configure.log" 2>&1 &&
  cmake --build --preset linux -j16 --target pinbench >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "build: $((SECONDS - t0)) s"
{ date -u +%FT%TZ; uptime; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
  grep -E "MemTotal|MemFree" /proc/meminfo; } | tee "$out/machine.txt"
t1=$SECONDS
build/linux/harness/pinbench run scenarios/nightly.yaml -o "$out/results.json" >"$out/progress.log" 2>&1
echo "nightly: exit $? after $((SECONDS - t1)) s" | tee -a "$out/machine.txt"
grep -E "WAIVED|failed|timeout|disturbed|CONTROL" "$out/progress.log" | cut -c1-200 | head -20
