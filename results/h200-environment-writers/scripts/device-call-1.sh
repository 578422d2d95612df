#!/usr/bin/env bash
# Device call 1 of 2 (issue 18, final tree; one H200, our Linux control, not the users' Windows
# answer): builds the whole tree (tests and benchmarks), runs every GPU test and `pinbench doctor`,
# and compares the doctor's environment with results/h200-doctor. Run from the repository root
# with $OUT set.
set -uo pipefail
mkdir -p "$OUT"
s=$(date +%s)
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real >"$OUT/configure.log" 2>&1 &&
  cmake --build --preset linux -j16 >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - s )) s"
s=$(date +%s)
ctest --preset linux -L gpu >"$OUT/gpu-tests.log" 2>&1
echo "gpu tests rc=$? $(( $(date +%s) - s )) s: $(grep -E 'tests passed|tests failed' "$OUT/gpu-tests.log")"
build/linux/harness/pinbench doctor --bundle "$OUT/doctor.json" >"$OUT/doctor.txt" 2>&1
echo "doctor rc=$?"; head -12 "$OUT/doctor.txt"
python3 results/h200-environment-writers/scripts/compare_environments.py results/h200-doctor/doctor.json "$OUT/doctor.json" >"$OUT/env-compare-doctor.txt" 2>&1
cat "$OUT/env-compare-doctor.txt" | head -40
