#!/usr/bin/env bash
# Runs every benchmark program and writes Google Benchmark JSON into the directory given as
# $1. Builds nothing: build first (cmake --preset linux && cmake --build --preset linux).
#
#   benchmarks/run_all.sh OUT_DIR [extra Google Benchmark flags, passed to every program]
#
# Writes OUT_DIR/<program>.json (standard Google Benchmark JSON with the custom context),
# OUT_DIR/<program>.log (console output), OUT_DIR/commands.txt (the exact commands and
# each program's exit status and duration) and OUT_DIR/nvidia-smi.txt.
# Budget: all three together are sized for about 3 minutes on one H200 (PCIe Gen5); each
# program is stopped after PINBENCH_BENCH_TIMEOUT seconds (default 300) so one hang cannot
# eat the whole device slot. Order: the headline numbers first.
# Env: PINBENCH_BUILD_DIR (default build/linux), PINBENCH_BENCH_TIMEOUT.
set -uo pipefail
cd "$(dirname "$0")/.."
if (($# < 1)); then
  echo "usage: $0 OUT_DIR [google-benchmark flags...]" >&2
  exit 2
fi
out=$1
shift
build=${PINBENCH_BUILD_DIR:-build/linux}
limit=${PINBENCH_BENCH_TIMEOUT:-300}
mkdir -p "$out"
# CUDA device 0 is then NVML device 0; the context's gpu.nvml_cuda_match says whether they agree.
export CUDA_DEVICE_ORDER=PCI_BUS_ID

nvidia-smi -q >"$out/nvidia-smi.txt" 2>&1 || echo "nvidia-smi not available" >"$out/nvidia-smi.txt"
: >"$out/commands.txt"
status=0
for program in transfer_bench staging_bench alloc_bench; do
  exe=$build/benchmarks/$program
  if [[ ! -x $exe ]]; then
    echo "run_all: $exe is not built" | tee -a "$out/commands.txt" >&2
    status=1
    continue
  fi
  cmd=(timeout "$limit" "$exe" "--benchmark_out=$out/$program.json" --benchmark_out_format=json
       --benchmark_counters_tabular=true "$@")
  { printf 'CUDA_DEVICE_ORDER=PCI_BUS_ID'; printf ' %q' "${cmd[@]}"; echo; } >>"$out/commands.txt"
  start=$SECONDS
  "${cmd[@]}" >"$out/$program.log" 2>&1
  rc=$?
  echo "# $program: exit $rc after $((SECONDS - start)) s" | tee -a "$out/commands.txt"
  ((rc == 0)) || status=1
done
exit $status
