#!/usr/bin/env bash
# Issue 16's resume on one H200 (Linux control): a workers run (workers.yaml) stopped by SIGINT
# while its child and 4 workers are on the GPU, then finished with the bare
# `pinbench run --resume FILE` that the stop message prints. From the repository root (carry
# .deps/xxhash):  bash results/h200-cancel/scripts/resume-call.sh OUT_DIR
set -uo pipefail
set -m
out=${1:?OUT_DIR}
mkdir -p "$out"
pb=build/linux/harness/pinbench
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real -DPINBENCH_BUILD_TESTS=OFF -DPINBENCH_BUILD_BENCHMARKS=OFF >"$out/configure.log" 2>&1 &&
  cmake --build --preset linux -j16 --target pinbench >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
apps() { nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader; }
start=$SECONDS
$pb run results/h200-cancel/workers.yaml -o "$out/workers-INT.json" >"$out/workers-INT.log" 2>&1 &
pid=$!
until (( $(apps | grep -c pinbench) >= 5 )) || (( SECONDS - start > 90 )); do sleep 0.2; done
echo "at $((SECONDS - start)) s, on the GPU: $(apps | tr '\n' ';')"
kill -s INT $pid; wait $pid; echo "exit $?: $(tail -1 "$out/workers-INT.log")"
sleep 2; echo "2 s later: compute apps: $(apps | grep pinbench | tr '\n' ';'); pgrep -x pinbench: $(pgrep -a -x pinbench | tr '\n' ';')"
cp "$out/workers-INT.json" "$out/workers-partial.json"
t=$SECONDS
$pb run --resume "$out/workers-INT.json" >"$out/workers-resume.log" 2>&1
echo "pinbench run --resume FILE: exit $? after $((SECONDS - t)) s: $(tail -1 "$out/workers-resume.log")"
sleep 2; echo "2 s later: compute apps: $(apps | grep pinbench | tr '\n' ';'); pgrep -x pinbench: $(pgrep -a -x pinbench | tr '\n' ';')"
python3 - "$out/workers-partial.json" "$out/workers-INT.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
print("partial: complete", a["complete"], "runs", [r["id"].split("/")[-2] for r in a["runs"]], "interrupted", a["interrupted"])
print("resumed: complete", b["complete"], "interrupted", b["interrupted"], "runs", [(r["id"].split("/")[-2], r["status"], len(r["repeats"])) for r in b["runs"]],
      "resumed parts", [(p["runs"], p["interrupted"]["signal"]) for p in b["resumed"]], "same measurement_id", a["measurement_id"] == b["measurement_id"],
      "first run kept (same nonce)", a["runs"][0]["repeats"][0]["nonce"] == b["runs"][0]["repeats"][0]["nonce"])
PY
rm -f "$out/configure.log" "$out/build.log"
