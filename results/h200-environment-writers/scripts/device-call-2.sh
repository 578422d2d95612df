#!/usr/bin/env bash
# Device call 2 of 2: scenarios/quick.yaml (every scenario kind once) with the build of call 1
# (built again when the machine was given back between the calls); its results' environment
# against results/h200-quick/results.json (written before the environment record had one
# home); then one benchmark program's context (its cuda.environment and gpu.nvml come from the
# environment record's writers) against results/h200-bench. Run from the repository root with
# $OUT set.
set -uo pipefail
mkdir -p "$OUT"
if [[ ! -x build/linux/harness/pinbench || ! -x build/linux/benchmarks/alloc_bench ]]; then
  s=$(date +%s)
  cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real >/dev/null 2>&1 &&
    cmake --build --preset linux -j16 --target pinbench alloc_bench >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
  echo "build (pinbench, alloc_bench) $(( $(date +%s) - s )) s"
fi
s=$(date +%s)
build/linux/harness/pinbench run scenarios/quick.yaml -o "$OUT/quick.json" 2>"$OUT/progress.log"
echo "quick rc=$? $(( $(date +%s) - s )) s"
tail -3 "$OUT/progress.log"
python3 results/h200-environment-writers/scripts/compare_environments.py results/h200-quick/results.json "$OUT/quick.json" >"$OUT/env-compare-quick.txt" 2>&1
cat "$OUT/env-compare-quick.txt" | head -60
# One small benchmark: with a filter that matches none, Google Benchmark writes no JSON at all.
build/linux/benchmarks/alloc_bench --benchmark_filter='^alloc_free/pageable/4KiB/' --benchmark_format=json >"$OUT/bench-context.json" 2>/dev/null
echo "alloc_bench context rc=$?"
python3 - results/h200-bench/alloc_bench.json "$OUT/bench-context.json" <<'PY' >"$OUT/env-compare-bench.txt" 2>&1
import json, sys
def keys(value, prefix=""):
    if isinstance(value, dict):
        return {k for name, v in value.items() for k in keys(v, f"{prefix}.{name}" if prefix else name)}
    return {prefix}
old, new = (json.load(open(p))["context"] for p in sys.argv[1:3])
for field in ("cuda.environment", "gpu.nvml"):
    a, b = keys(json.loads(old[field])), keys(json.loads(new[field]))
    print(field, "keys:", len(a), "->", len(b), "only old:", sorted(a - b) or "none", "only new:", sorted(b - a) or "none")
PY
cat "$OUT/env-compare-bench.txt"
# A run killed outright on the GPU (SIGKILL, 20 s in): no pinbench process left on the GPU, its
# work directory left with its claim, and the next launcher (doctor) removes it.
{
  build/linux/harness/pinbench run scenarios/quick.yaml -o /tmp/killed.json >/dev/null 2>&1 &
  pid=$!
  sleep 20
  echo "work directory while it runs: $(ls -d /tmp/pinbench-$pid-* 2>&1) holding: $(ls /tmp/pinbench-$pid-*/ 2>&1 | tr '\n' ' ')"
  kill -KILL "$pid"; wait "$pid"; echo "run exit $?"
  sleep 2
  echo "compute apps 2 s later: $(nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader | tr '\n' ';')"
  echo "pinbench processes: $(pgrep -x pinbench | tr '\n' ' ')"
  echo "left: $(ls -d /tmp/pinbench-$pid-* 2>&1)"
  build/linux/harness/pinbench doctor >/dev/null 2>&1; echo "doctor exit $?"
  echo "after doctor: $(ls -d /tmp/pinbench-$pid-* 2>&1)"
} >"$OUT/kill-check.txt" 2>&1
cat "$OUT/kill-check.txt"
