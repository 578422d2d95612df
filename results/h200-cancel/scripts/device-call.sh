#!/usr/bin/env bash
# Issue 16 on one H200 (our Linux control, not the users' Windows): SIGINT, SIGTERM and SIGKILL
# sent to the `pinbench run` parent alone (as a CI runner does), during scenarios/quick.yaml and
# during a workers run with 4 workers (results/h200-cancel/workers.yaml); then doctor and
# alloc_bench after SIGINT / SIGTERM. After each: exit code, the results file's complete /
# interrupted / runs, and 2 s later `nvidia-smi --query-compute-apps` and `pgrep -x pinbench`.
# From the repository root:  bash results/h200-cancel/scripts/device-call.sh OUT_DIR
set -uo pipefail
set -m   # job control: background jobs keep default SIGINT handling (bash ignores it otherwise)
out=${1:?OUT_DIR}
mkdir -p "$out"
exec > >(tee "$out/cancel.log") 2>&1
pb=build/linux/harness/pinbench
bench=build/linux/benchmarks/alloc_bench
t0=$SECONDS
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real -DPINBENCH_BUILD_TESTS=OFF >"$out/configure.log" 2>&1 &&
  cmake --build --preset linux -j16 --target pinbench alloc_bench >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "build: $((SECONDS - t0)) s; $(date -u +%FT%TZ); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)"

apps() { nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader; }
ours='pinbench|alloc_bench'
on_gpu() { apps | grep -cE "$ours"; }
# Wait until at least $1 pinbench processes are on the GPU and $2 seconds have passed since $3.
wait_for() {
  local n=$1 min_s=$2 start=$3
  while (( SECONDS - start < min_s )) || (( $(on_gpu) < n )); do
    (( SECONDS - start > min_s + 60 )) && { echo "  (gave up waiting for $n on the GPU)"; return 1; }
    sleep 0.2
  done
}
after() {
  sleep 2
  local left_apps left_procs
  left_apps=$(apps | grep -E "$ours" | tr '\n' ';')
  left_procs=$(pgrep -a -x "$ours" | tr '\n' ';')
  echo "  2 s later, compute apps: ${left_apps:-none}; pgrep -x: ${left_procs:-none}"
  [[ -z "$left_apps$left_procs" ]] && echo "  LEFT BEHIND: none" || echo "  LEFT BEHIND: yes"
}
summary() {
  python3 - "$1" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except Exception as e:
    print(f"  results: unreadable ({e})"); sys.exit()
runs = d.get("runs", [])
print(f"  results: complete={d.get('complete')} interrupted={json.dumps(d.get('interrupted'))} resumed={json.dumps(d.get('resumed'))[:120]} runs={len(runs)} statuses={sorted({r.get('status') for r in runs})}")
PY
}
# cancel NAME SIGNAL MIN_PROCS MIN_S -- COMMAND...
cancel() {
  local name=$1 sig=$2 procs=$3 min_s=$4; shift 5
  echo "== $name: SIG$sig once $procs pinbench process(es) are on the GPU, after at least $min_s s: $*"
  local start=$SECONDS
  "$@" >"$out/$name.log" 2>&1 &
  local pid=$!
  wait_for "$procs" "$min_s" "$start"
  echo "  at $((SECONDS - start)) s: on the GPU: $(apps | grep -E "$ours" | tr '\n' ';')"
  kill -s "$sig" "$pid"
  local t=$SECONDS
  wait "$pid"; local rc=$?
  echo "  exit $rc after $((SECONDS - t)) s; last line: $(tail -1 "$out/$name.log" | cut -c1-200)"
  after
}

echo "before: compute apps: $(apps | tr '\n' ';')"
for sig in INT TERM KILL; do
  cancel "quick-$sig" $sig 1 35 -- $pb run scenarios/quick.yaml -o "$out/quick-$sig.json"
  summary "$out/quick-$sig.json"
done
for sig in INT TERM KILL; do
  cancel "workers-$sig" $sig 5 0 -- $pb run results/h200-cancel/workers.yaml -o "$out/workers-$sig.json"
  summary "$out/workers-$sig.json"
done
echo "== resume the SIGINT workers file"
t=$SECONDS
$pb run --resume "$out/workers-INT.json" >"$out/workers-resume.log" 2>&1
echo "  exit $? after $((SECONDS - t)) s"; summary "$out/workers-INT.json"; after
for sig in INT TERM; do
  cancel "doctor-$sig" $sig 1 0 -- $pb doctor
  cancel "alloc_bench-$sig" $sig 1 4 -- $bench
done
tar czf "$out/logs.tgz" -C "$out" $(cd "$out" && ls *.log | grep -v cancel.log) configure.log build.log 2>/dev/null
tar czf "$out/results.tgz" -C "$out" $(cd "$out" && ls *.json)
echo "done: $((SECONDS - t0)) s"
