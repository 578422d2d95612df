#!/usr/bin/env bash
# Device call 2 of 2: scenarios/quick.yaml (every scenario kind once) with the build of call 1;
# its results' environment against results/h200-quick/results.json (written before the
# environment record had one home). Run from the repository root with $OUT set.
set -uo pipefail
mkdir -p "$OUT"
s=$(date +%s)
build/linux/harness/pinbench run scenarios/quick.yaml -o "$OUT/quick.json" 2>"$OUT/progress.log"
echo "quick rc=$? $(( $(date +%s) - s )) s"
tail -3 "$OUT/progress.log"
python3 results/h200-issue18-final/compare_environments.py results/h200-quick/results.json "$OUT/quick.json" >"$OUT/env-compare-quick.txt" 2>&1
cat "$OUT/env-compare-quick.txt" | head -60
