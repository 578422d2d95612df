#!/usr/bin/env bash
# Device call 1 of 2 (issue 18, final tree; one H200, our Linux control, not the users' Windows
# answer): builds the whole tree (tests and benchmarks), runs every GPU test, `pinbench doctor`,
# and one benchmark program's context (its cuda.environment and gpu.nvml come from the
# environment record's writers). Run from the repository root with $OUT set.
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
python3 results/h200-issue18-final/compare_environments.py results/h200-doctor/doctor.json "$OUT/doctor.json" >"$OUT/env-compare-doctor.txt" 2>&1
cat "$OUT/env-compare-doctor.txt" | head -40
build/linux/benchmarks/alloc_bench --benchmark_filter=NONE --benchmark_format=json >"$OUT/bench-context.json" 2>/dev/null
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
