#!/usr/bin/env bash
# The device call that produced this folder: one H200 (our Linux control, not Windows). Builds
# the whole tree (tests and benchmarks), runs every GPU test, then the command kind's shipped
# scenario (scenarios/pytorch-dataloader.yaml: a real DataLoader, traced, 0/2/4/8 workers).
# Run from the repository root with $OUT set.
set -uo pipefail
mkdir -p "$OUT"
s=$(date +%s)
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real >"$OUT/configure.log" 2>&1 &&
  cmake --build --preset linux -j16 >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
echo "build $(( $(date +%s) - s )) s"
s=$(date +%s)
ctest --preset linux -L gpu >"$OUT/gpu-tests.log" 2>&1
echo "gpu tests rc=$? $(( $(date +%s) - s )) s: $(grep -E 'tests passed|tests failed' "$OUT/gpu-tests.log")"
s=$(date +%s)
build/linux/harness/pinbench run scenarios/pytorch-dataloader.yaml -o "$OUT/pytorch-dataloader.json" 2>"$OUT/progress.log"
echo "pytorch-dataloader rc=$? $(( $(date +%s) - s )) s"
tail -3 "$OUT/progress.log"
