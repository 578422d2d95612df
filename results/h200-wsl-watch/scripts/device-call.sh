#!/usr/bin/env bash
# Issue 29 on one H200 (our Linux control, not WSL2): the device watch with NVML's process lists
# refused, as WSL2 gives NVML, through tools/nvml_no_process_lists (an LD_PRELOAD library). From
# the repository root on the GPU machine (carry .deps/xxhash):
#   bash results/h200-wsl-watch/scripts/device-call.sh "$OUT"
# 1. build pinbench, pinbench_neighbour and the shim;
# 2. doctor with the shim: it must say "watch: device level only";
# 3. quiet: scenarios/disturbance.yaml with the shim (expected: pageable 0 B, cudaMallocHost
#    1 GiB 2 MiB, 4 GiB 8 MiB on cuda.free, all ok);
# 4. burst: the 1 GiB runs beside `pinbench_neighbour device-burst` with the shim and
#    --keep-going-when-busy (no run may end ok with a value off the quiet one);
# 5. persistent: `pinbench run` beside `pinbench_neighbour persistent`, with the shim and without:
#    it must stop with exit 3 within about a minute, naming the neighbour (its pid without the
#    shim, "device usage moved N times" with it).
# The whole call stays under 8 minutes; everything goes to OUT (summary.txt and all.tar.gz).
set -uo pipefail
out=${1:-${OUT:?OUT_DIR}}
mkdir -p "$out"
t0=$SECONDS
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real -DPINBENCH_BUILD_TESTS=OFF -DPINBENCH_BUILD_BENCHMARKS=OFF >"$out/configure.log" 2>&1 &&
  cmake --build --preset linux -j16 --target pinbench pinbench_neighbour pinbench_nvml_no_process_lists >"$out/build.log" 2>&1 ||
  { tail -30 "$out/configure.log" "$out/build.log"; exit 1; }
echo "build: $((SECONDS - t0)) s" | tee "$out/summary.txt"
P=build/linux/harness/pinbench
N=build/linux/tools/pinbench_neighbour
SHIM=$PWD/build/linux/tools/libpinbench_nvml_no_process_lists.so
{ nvidia-smi -L; nvidia-smi --query-gpu=driver_version,memory.used --format=csv; } >"$out/machine.txt" 2>&1
step() { echo "$*" | tee -a "$out/summary.txt"; }

LD_PRELOAD=$SHIM timeout 60 $P doctor --bundle "$out/doctor.json" >"$out/doctor.txt" 2>&1
step "doctor (shim): exit $?"
grep -E "^watch:|^(PASS|FAIL)|nvml_no_process_lists" "$out/doctor.txt" | head -6 | tee -a "$out/summary.txt"

t=$SECONDS
LD_PRELOAD=$SHIM timeout 120 $P run scenarios/disturbance.yaml -o "$out/quiet.json" >"$out/quiet-progress.log" 2>&1
step "quiet (shim): run exit $?, $((SECONDS - t)) s"

# A neighbour started 3 s before the command and stopped after it: with_neighbour NAME MODE SEED CMD...
with_neighbour() {
  local name=$1 mode=$2 seed=$3; shift 3
  "$N" "$mode" --seed "$seed" --seconds 300 >"$out/$name-neighbour.log" 2>&1 &
  local np=$!
  sleep 3
  local t=$SECONDS
  "$@"
  local rc=$?
  kill "$np" 2>/dev/null; wait "$np" 2>/dev/null
  step "$name: run exit $rc, $((SECONDS - t)) s"
}
with_neighbour burst device-burst 1 env LD_PRELOAD="$SHIM" timeout 150 $P run scenarios/disturbance.yaml \
  --only '*/1GiB/*' --keep-going-when-busy -o "$out/burst.json" >"$out/burst-progress.log" 2>&1
with_neighbour persistent-shim persistent 3 env LD_PRELOAD="$SHIM" timeout 80 $P run scenarios/disturbance.yaml \
  -o "$out/persistent-shim.json" >"$out/persistent-shim-progress.log" 2>&1
grep -E "the GPU is busy" "$out/persistent-shim-progress.log" | head -2 | tee -a "$out/summary.txt"
with_neighbour persistent persistent 4 timeout 80 $P run scenarios/disturbance.yaml \
  -o "$out/persistent.json" >"$out/persistent-progress.log" 2>&1
grep -E "the GPU is busy" "$out/persistent-progress.log" | head -2 | tee -a "$out/summary.txt"

python3 - "$out" <<'PY' | tee -a "$out/summary.txt"
import json, os, sys
out = sys.argv[1]
MiB = 1 << 20
KEY = "cost.after_first_use.cuda.free"
def load(name):
    p = os.path.join(out, name + ".json")
    return json.load(open(p)) if os.path.exists(p) else None
quiet = load("quiet")
ref = {}
if quiet:
    for r in quiet["runs"]:
        m = r["metrics"].get(KEY, {})
        ref[r["id"]] = m.get("median")
wrong = 0
for name in ["quiet", "burst", "persistent-shim", "persistent"]:
    d = load(name)
    if d is None:
        print(name, "missing"); continue
    w = d["controls"].get("watch", {})
    print(f"{name}: watch level {w.get('level')} ({w.get('level_why', '')}); null control "
          f"{d['controls'].get('null', {}).get('verdict')}; busy: {d['controls'].get('busy_gpu', {}).get('text', 'no')}")
    for r in d["runs"]:
        m = r["metrics"].get(KEY, {})
        lo, hi = m.get("min"), m.get("max")
        q = ref.get(r["id"])
        off = r["status"] == "ok" and q is not None and lo is not None and max(abs(lo - q), abs(hi - q)) > 2 * MiB
        wrong += off
        dist = r.get("disturbance") or {}
        print(f"  {r['id']:45s} {r['status']:9s} cuda.free median {m.get('median')} min {lo} max {hi} "
              f"quiet {q} attempts {len(r['repeats'])} disturbed {dist.get('disturbed_attempts', 0)}"
              + ("  WRONG: ok with a value off the quiet one" if off else ""))
print(f"ok runs with a value off the quiet one by more than 2 MiB: {wrong}")
PY
# At most 8 files come back: the summary, and everything else in one archive.
tar -C "$out" -czf /tmp/h200-wsl-watch.tar.gz --exclude=summary.txt . && mv /tmp/h200-wsl-watch.tar.gz "$out/all.tar.gz"
find "$out" -type f ! -name all.tar.gz ! -name summary.txt -delete
echo "total: $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
