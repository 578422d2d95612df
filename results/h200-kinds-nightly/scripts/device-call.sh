#!/usr/bin/env bash
# scenarios/nightly.yaml on one H200 (Linux control, not Windows), from the repository root:
#   bash results/h200-kinds-nightly/scripts/device-call.sh OUT_DIR
# Builds pinbench only, records the host's page configuration, then times the nightly run.
set -uo pipefail
out=${1:?OUT_DIR}
mkdir -p "$out"
t0=$SECONDS
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/configure.log" 2>&1 &&
  cmake --build --preset linux -j16 --target pinbench >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "build: $((SECONDS - t0)) s"
{ nvidia-smi -L; grep -E "MemTotal|MemFree|HugePages_|Hugepagesize" /proc/meminfo
  echo "THP: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"; } | tee "$out/machine.txt"
t1=$SECONDS
build/linux/harness/pinbench run scenarios/nightly.yaml -o "$out/results.json" >"$out/progress.log" 2>&1
echo "nightly: exit $? after $((SECONDS - t1)) s" | tee -a "$out/machine.txt"
grep -E "WAIVED|failed|timeout|CONTROL" "$out/progress.log" | cut -c1-220 | head -30
