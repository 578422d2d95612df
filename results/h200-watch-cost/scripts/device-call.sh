#!/usr/bin/env bash
# Issue 14, the watch's cost: scenarios/nightly.yaml on one H200 (Linux control, not Windows),
# with the device watch on (default: 10 ms polls, a 2 s null window every 60 s) or off:
#   bash results/h200-watch-cost/scripts/device-call.sh OUT_DIR on|off
set -uo pipefail
out=${1:?OUT_DIR}; mode=${2:?on|off}
mkdir -p "$out"
t0=$SECONDS
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real -DPINBENCH_BUILD_TESTS=OFF -DPINBENCH_BUILD_BENCHMARKS=OFF >"$out/configure-$mode.log" 2>&1 &&
  cmake --build --preset linux -j16 --target pinbench >"$out/build-$mode.log" 2>&1 || { tail -30 "$out/build-$mode.log"; exit 1; }
echo "build: $((SECONDS - t0)) s"
flag=(); [[ $mode == off ]] && flag=(--no-watch)
t1=$SECONDS
build/linux/harness/pinbench run scenarios/nightly.yaml "${flag[@]}" -o "$out/nightly-watch-$mode.json" >"$out/progress-watch-$mode.log" 2>&1
echo "nightly (watch $mode): exit $? after $((SECONDS - t1)) s" | tee "$out/summary-$mode.txt"
grep -E "WAIVED|failed|timeout|disturbed|CONTROL" "$out/progress-watch-$mode.log" | cut -c1-200 | head -20
