#!/usr/bin/env bash
# scenarios/multi-gpu.yaml on two H200s of one host (device kind nvidia-h200-x2; Linux control,
# not Windows), from the repository root:
#   bash results/h200x2-multi-gpu/scripts/device-call.sh OUT_DIR
set -uo pipefail
out=${1:?OUT_DIR}
mkdir -p "$out"
{ nvidia-smi -L; nvidia-smi topo -m; grep -E "MemTotal|MemFree" /proc/meminfo; } 2>&1 | tee "$out/machine.txt"
t0=$SECONDS
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/configure.log" 2>&1 &&
  cmake --build --preset linux -j32 --target pinbench pinbench_gpu_tests >"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
echo "build: $((SECONDS - t0)) s"
export CUDA_DEVICE_ORDER=PCI_BUS_ID
timeout 120 build/linux/harness/tests/pinbench_gpu_tests --gtest_filter='KindsOnGpu*' >"$out/gpu-tests.log" 2>&1
echo "gpu tests: exit $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" "$out/gpu-tests.log" | head
t1=$SECONDS
build/linux/harness/pinbench run scenarios/multi-gpu.yaml -o "$out/results.json" >"$out/progress.log" 2>&1
echo "multi-gpu: exit $? after $((SECONDS - t1)) s" | tee -a "$out/machine.txt"
grep -E "failed|timeout|CONTROL" "$out/progress.log" | cut -c1-230 | head -20
