#!/usr/bin/env bash
# scenarios/apis.yaml on one H200 (Linux control, not Windows), from the repository root:
#   bash results/h200-apis/scripts/device-call.sh OUT_DIR
# 1. configures hugetlb pages on the GPU machine itself, as root (17 GiB of 2 MiB pages and
#    17 x 1 GiB pages; the machine starts with none), and records the page configuration;
# 2. builds pinbench and the GPU tests, runs the allocator and kinds GPU tests;
# 3. times scenarios/apis.yaml.
set -uo pipefail
out=${1:?OUT_DIR}
mkdir -p "$out"
{
  echo "before: $(grep -E 'HugePages_Total' /proc/meminfo)"
  echo 8704 >/proc/sys/vm/nr_hugepages
  echo 17 >/sys/kernel/mm/hugepages/hugepages-1048576kB/nr_hugepages
  for d in /sys/kernel/mm/hugepages/hugepages-*; do
    echo "$(basename "$d"): nr=$(cat "$d/nr_hugepages") free=$(cat "$d/free_hugepages")"
  done
  echo "THP enabled: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
  echo "THP defrag: $(cat /sys/kernel/mm/transparent_hugepage/defrag)"
  grep -E "MemTotal|MemFree|HugePages_|Hugepagesize" /proc/meminfo
  nvidia-smi -L
} 2>&1 | tee "$out/machine.txt"
t0=$SECONDS
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/configure.log" 2>&1 &&
  cmake --build --preset linux -j16 --target pinbench pinbench_gpu_tests >"$out/build.log" 2>&1 ||
  { tail -30 "$out/build.log"; exit 1; }
echo "build: $((SECONDS - t0)) s"
export CUDA_DEVICE_ORDER=PCI_BUS_ID
timeout 200 build/linux/harness/tests/pinbench_gpu_tests --gtest_filter='*Alloc*:*Variant*:KindsOnGpu*' \
  >"$out/gpu-tests.log" 2>&1
echo "gpu tests: exit $?"; grep -E "^\[  (PASSED|FAILED|  SKIPPED)|FAILED  \]" "$out/gpu-tests.log" | head -20
t1=$SECONDS
build/linux/harness/pinbench run scenarios/apis.yaml -o "$out/results.json" >"$out/progress.log" 2>&1
echo "apis: exit $? after $((SECONDS - t1)) s" | tee -a "$out/machine.txt"
grep -E "waived|failed|timeout|CONTROL" "$out/progress.log" | cut -c1-230 | head -30
