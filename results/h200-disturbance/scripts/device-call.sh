#!/usr/bin/env bash
# Issue 14 on one H200 (our Linux control, not Windows), from the repository root:
#   bash results/h200-disturbance/scripts/device-call.sh OUT_DIR
# Builds pinbench and the neighbour, then runs `pinbench doctor` and scenarios/disturbance.yaml
# quiet, beside each neighbour mode (steady, device-burst, pin-host), and once with
# CUDA_VISIBLE_DEVICES set to the GPU's UUID. Each neighbour starts 3 s before and is killed after.
set -uo pipefail
out=${1:?OUT_DIR}
mkdir -p "$out"
t0=$SECONDS
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real -DPINBENCH_BUILD_TESTS=OFF -DPINBENCH_BUILD_BENCHMARKS=OFF >"$out/configure.log" 2>&1 &&
  cmake --build --preset linux -j16 --target pinbench pinbench_neighbour >"$out/build.log" 2>&1 || { tail -30 "$out/configure.log" "$out/build.log"; exit 1; }
echo "build: $((SECONDS - t0)) s"
P=build/linux/harness/pinbench
N=build/linux/tools/pinbench_neighbour
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,memory.used --format=csv; } | tee "$out/machine.txt"
measure() {  # NAME [neighbour mode args...]
  local name=$1; shift
  local np=""
  if (($#)); then "$N" "$@" --seconds 400 >"$out/$name-neighbour.log" 2>&1 & np=$!; sleep 3; fi
  local t=$SECONDS
  $P doctor --bundle "$out/$name-doctor.json" >"$out/$name-doctor.txt" 2>&1; local dc=$?
  $P run scenarios/disturbance.yaml -o "$out/$name.json" >"$out/$name-progress.log" 2>&1; local rc=$?
  [[ -n $np ]] && kill "$np" && wait "$np" 2>/dev/null
  echo "$name: doctor exit $dc, run exit $rc, $((SECONDS - t)) s" | tee -a "$out/summary.txt"
  grep -E "^(PASS|FAIL)|seen:" "$out/$name-doctor.txt" | head -5 | tee -a "$out/summary.txt"
}
# MODES picks a subset (default: all), e.g. MODES="burst pinhost".
modes=${MODES:-quiet steady burst pinhost uuid}
for m in $modes; do
  case $m in
    quiet) measure quiet ;;
    steady) measure steady steady --bytes 20 ;;
    burst) measure burst device-burst --seed 1 ;;
    pinhost) measure pinhost pin-host --seed 2 ;;
    uuid)
      uuid=$(nvidia-smi --query-gpu=uuid --format=csv,noheader | head -1)
      t=$SECONDS
      CUDA_VISIBLE_DEVICES=$uuid $P run scenarios/disturbance.yaml --only '*/4GiB/*' -o "$out/uuid.json" >"$out/uuid-progress.log" 2>&1
      echo "uuid ($uuid): run exit $?, $((SECONDS - t)) s" | tee -a "$out/summary.txt" ;;
  esac
done
python3 - "$out" <<'PY' | tee -a "$out/summary.txt"
import json, sys, os
out = sys.argv[1]
for name in ["quiet", "steady", "burst", "pinhost", "uuid"]:
    p = os.path.join(out, name + ".json")
    if not os.path.exists(p): print(name, "missing"); continue
    d = json.load(open(p))
    for r in d["runs"]:
        m = r["metrics"].get("cost.after_first_use.cuda.free", {})
        n = r["metrics"].get("cost.after_first_use.nvml.0.used", {})
        dist = r.get("disturbance") or {}
        print(f"{name:8s} {r['id']:45s} {r['status']:9s} cuda.free {m.get('median')} nvml.0.used {n.get('median')} "
              f"attempts {len(r['repeats'])} disturbed {dist.get('disturbed_attempts', 0)}")
    w = d["controls"].get("watch", {})
    print(f"{name:8s} watch reads {w.get('reads')} mean {w.get('read_ms_mean')} ms; null {d['controls'].get('null', {}).get('verdict')}")
PY
# At most 8 files come back: the summary, and everything else in one archive.
tar -C "$out" -czf /tmp/h200-disturbance.tar.gz . && mv /tmp/h200-disturbance.tar.gz "$out/all.tar.gz"
find "$out" -type f ! -name all.tar.gz ! -name summary.txt -delete
