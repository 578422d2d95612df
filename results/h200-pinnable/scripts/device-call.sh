#!/usr/bin/env bash
# Issue 20 on one H200 (our Linux control, not the users' Windows), from the repository root
# (carry .deps/xxhash):  bash results/h200-pinnable/scripts/device-call.sh OUT_DIR
# Builds pinbench, runs scenarios/pinnable.yaml (max pinnable against free VRAM, and the failure
# path with the host limit enforced), then the independent check pin_when_full.cu at 1 GiB free
# and with nothing filled; then issue 16's resume on the GPU: a workers run stopped by SIGINT
# with its 4 workers on the GPU, finished with the bare `pinbench run --resume FILE`.
set -uo pipefail
set -m
out=${1:?OUT_DIR}
mkdir -p "$out"
pb=build/linux/harness/pinbench
t0=$SECONDS
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real -DPINBENCH_BUILD_TESTS=OFF -DPINBENCH_BUILD_BENCHMARKS=OFF >"$out/configure.log" 2>&1 &&
  cmake --build --preset linux -j16 --target pinbench >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
nvcc -O2 -o "$out/pin_when_full" results/h200-pinnable/scripts/pin_when_full.cu || exit 1
{ echo "build: $((SECONDS - t0)) s"; date -u +%FT%TZ; uptime; nvidia-smi -L
  nvidia-smi --query-gpu=driver_version,memory.total,memory.used --format=csv,noheader
  grep -E "MemTotal|MemFree|MemAvailable|Committed_AS|CommitLimit" /proc/meminfo; ulimit -v; } > "$out/machine.txt" 2>&1
cat "$out/machine.txt"
t1=$SECONDS
$pb run scenarios/pinnable.yaml -o "$out/pinnable.json" >"$out/pinnable-progress.log" 2>&1
echo "pinnable.yaml: exit $? after $((SECONDS - t1)) s" | tee -a "$out/machine.txt"
grep -E "WAIVED|failed|timeout|disturbed|CONTROL" "$out/pinnable-progress.log" | cut -c1-220 | head -20
python3 - "$out/pinnable.json" <<'PY' | tee "$out/summary.txt"
import json, sys
d = json.load(open(sys.argv[1]))
G = 2**30
for r in d["runs"]:
    for rep in r.get("repeats", []):
        x = rep.get("data", {})
        if "max_pinnable" not in x:
            continue
        s = x.get("small_after_failure")
        print(f"{r['id']:60s} #{rep.get('index')}: free_before {x.get('free_before', 0)/G:7.2f} GiB  max_pinnable {x['max_pinnable']/G:5.2f} GiB"
              f"  capped {x.get('capped')}  tries {len(x.get('tried', []))}  stopped_by {x.get('stopped_by','')[:70]!r}"
              + (f"  small after: {s['ok']} {s['error'][:50]!r}" if s else ""))
    if r.get("status") != "ok":
        print(f"{r['id']}: {r.get('status')} {r.get('reason','')[:200]}")
PY
echo "== independent check (pin_when_full.cu)"
"$out/pin_when_full" 1024 8 2>&1 | tee "$out/pin_when_full.txt"
"$out/pin_when_full" 1000000000 8 2>&1 | tee -a "$out/pin_when_full.txt"

echo "== issue 16: SIGINT with 4 workers on the GPU, then the bare --resume"
start=$SECONDS
$pb run results/h200-cancel/workers.yaml -o "$out/workers-INT.json" >"$out/workers-INT.log" 2>&1 &
pid=$!
until (( $(nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader | grep -c pinbench) >= 5 )) || (( SECONDS - start > 90 )); do sleep 0.2; done
echo "at $((SECONDS - start)) s: $(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ';')"
kill -s INT $pid; wait $pid; echo "exit $?: $(tail -1 "$out/workers-INT.log" | cut -c1-220)"
sleep 2; echo "2 s later: compute apps: $(nvidia-smi --query-compute-apps=pid,process_name --format=csv,noheader | grep pinbench | tr '\n' ';'); pgrep: $(pgrep -a -x pinbench | tr '\n' ';')"
cp "$out/workers-INT.json" "$out/workers-partial.json"
t=$SECONDS
$pb run --resume "$out/workers-INT.json" >"$out/workers-resume.log" 2>&1
echo "resume: exit $? after $((SECONDS - t)) s: $(tail -1 "$out/workers-resume.log" | cut -c1-200)"
python3 - "$out/workers-partial.json" "$out/workers-INT.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
print("partial: complete", a["complete"], "runs", [r["id"].split("/")[-2] for r in a["runs"]], "interrupted", a["interrupted"]["signal"])
print("resumed: complete", b["complete"], "runs", [(r["id"].split("/")[-2], r["status"]) for r in b["runs"]],
      "resumed parts", len(b["resumed"]), "same measurement_id", a["measurement_id"] == b["measurement_id"],
      "first run kept", a["runs"][0]["repeats"][0]["nonce"] == b["runs"][0]["repeats"][0]["nonce"])
PY
tar czf "$out/logs.tgz" -C "$out" configure.log build.log pinnable-progress.log workers-INT.log workers-resume.log workers-partial.json workers-INT.json
rm -f "$out/pin_when_full" "$out/configure.log" "$out/build.log" "$out"/workers-*.log "$out"/workers-*.json
echo "done: $((SECONDS - t0)) s"
