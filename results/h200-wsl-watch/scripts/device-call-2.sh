#!/usr/bin/env bash
# Call 2 of issue 29 on one H200 (Linux control, not WSL2): after call 1 showed that a persistent
# neighbour, seen at device level only (NVML's process lists refused by the shim), disturbed a
# third to a half of the attempts and never stopped `pinbench run`, the busy-GPU rule counts
# disturbed attempts against clean ones where no process is named. This call repeats call 1's
# "persistent-shim" step alone on that tree (device time was short). From the repository root
# (carry .deps/xxhash):   bash results/h200-wsl-watch/scripts/device-call-2.sh "$OUT"
set -uo pipefail
out=${1:-${OUT:?OUT_DIR}}
mkdir -p "$out"
t0=$SECONDS
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real -DPINBENCH_BUILD_TESTS=OFF -DPINBENCH_BUILD_BENCHMARKS=OFF >"$out/configure.log" 2>&1 &&
  cmake --build --preset linux -j16 --target pinbench pinbench_neighbour pinbench_nvml_no_process_lists >"$out/build.log" 2>&1 ||
  { tail -30 "$out/configure.log" "$out/build.log"; exit 1; }
echo "build: $((SECONDS - t0)) s" | tee "$out/summary.txt"
P=build/linux/harness/pinbench
N=build/linux/tools/pinbench_neighbour
SHIM=$PWD/build/linux/tools/libpinbench_nvml_no_process_lists.so
"$N" persistent --seed 5 --seconds 300 >"$out/persistent-shim-neighbour.log" 2>&1 &
np=$!
sleep 3
t=$SECONDS
LD_PRELOAD=$SHIM timeout 80 $P run scenarios/disturbance.yaml -o "$out/persistent-shim.json" >"$out/persistent-shim-progress.log" 2>&1
rc=$?
kill "$np" 2>/dev/null; wait "$np" 2>/dev/null
echo "persistent-shim: run exit $rc, $((SECONDS - t)) s" | tee -a "$out/summary.txt"
grep -E "the GPU is busy|^watch|CONTROL" "$out/persistent-shim-progress.log" | head -3 | tee -a "$out/summary.txt"
tail -4 "$out/persistent-shim-progress.log"
