#!/usr/bin/env bash
# Issue 46 on one GPU machine, in ONE device call of at most ~9 minutes (README.md here has the
# exact call and how to prepare old-tree/): today's main (d64bda8, old-tree/) and this branch,
# each built on the machine, then
#   1. ci/main.sh of the old tree (quick.yaml, the budget, the answer), then of the new one, each
#      timed as `ci/main.sh: exit N after S s`;
#   2. pinreport compare of the new quick.json against the old one (stored by the old ci/main.sh),
#      and the bytes metrics of every run side by side (must be identical);
#   3. a quick run beside a device-burst neighbour (must end disturbed, never stop early);
#   4. the new nightly.yaml (--all-repeats) with what time is left: interrupted (SIGINT, the file
#      says complete: false) where it does not fit; the old nightly cannot fit at all (about 430 s).
# Every stage has a deadline so the call always ends with its files; what comes back under $OUT:
# wall.txt (every timing line), compare.txt, old-quick.json, new-quick.json, neighbour.json,
# nightly.json, phases.txt, logs.tar.gz (everything else).
set -uo pipefail
out=${OUT:?OUT}
root=$PWD
budget_s=${BUDGET_S:-530}  # the whole call
work=/tmp/minute
rm -rf "$work" && mkdir -p "$work/old" "$work/new" "$work/logs"
wall=$out/wall.txt
: >"$wall"
say() { echo "$*" | tee -a "$wall"; }
left() { echo $((budget_s - SECONDS)); }
# Seconds a stage may take: what is left less a margin for the stages after it, at least 10.
limit() { local l=$(($(left) - $1)); echo $((l < 10 ? 10 : l)); }

if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site
fi
nvidia-smi -L | tee -a "$wall"
[[ -d old-tree/harness ]] || { say "old-tree/ is missing: see results/answer-in-a-minute/README.md"; exit 2; }
[[ -d old-tree/.deps || ! -d .deps ]] || cp -R .deps old-tree/.deps

# --- both builds at once (16 cores): pinbench of each, the neighbour of the new one ---------
t=$SECONDS
(cd old-tree && cmake --preset linux -B "$root/build/old" >"$work/logs/build-old.log" 2>&1 &&
  cmake --build "$root/build/old" --target pinbench -j 8 >>"$work/logs/build-old.log" 2>&1) &
old_build=$!
(cmake --preset linux -B "$root/build/gpu" >"$work/logs/build-new.log" 2>&1 &&
  cmake --build "$root/build/gpu" --target pinbench pinbench_neighbour -j 8 >>"$work/logs/build-new.log" 2>&1) &
new_build=$!
wait $old_build || { say "old build failed"; tail -20 "$work/logs/build-old.log"; exit 3; }
wait $new_build || { say "new build failed"; tail -20 "$work/logs/build-new.log"; exit 3; }
say "builds (both, in parallel): $((SECONDS - t)) s"
old_exe=$root/build/old/harness/pinbench
new_exe=$root/build/gpu/harness/pinbench

# --- 1. ci/main.sh, old then new (no build: PINBENCH_EXE; no apt: SKIP_SETUP) ---------------
main_of() {  # NAME TREE EXE SECONDS-TO-KEEP-FOR-LATER-STAGES
  local name=$1 tree=$2 exe=$3 rc=0 t0=$SECONDS
  (cd "$tree" && SKIP_SETUP=1 PINBENCH_EXE=$exe OUT=$work/$name \
    timeout -s INT -k 15 "$(limit "$4")" bash ci/main.sh) >"$work/logs/main-$name.log" 2>&1 || rc=$?
  say "$name: ci/main.sh: exit $rc after $((SECONDS - t0)) s (doctor, quick.yaml, budget, pinreport; built before)"
  grep -a '^ci/main.sh: \|repeats: planned' "$work/logs/main-$name.log" | sed "s/^/$name: /" | tee -a "$wall"
}
main_of old "$root/old-tree" "$old_exe" 200
main_of new "$root" "$new_exe" 60
cp "$work/old/quick.json" "$out/old-quick.json" 2>/dev/null
cp "$work/new/quick.json" "$out/new-quick.json" 2>/dev/null

# --- 2. the same values and verdicts -------------------------------------------------------
rc=0
PYTHONPATH=$root/reports${PYTHONPATH:+:$PYTHONPATH} PINBENCH_EXE=$new_exe \
  python3 -m pinreport compare --store "$work/old/store" --current "$work/new/quick.json" --min-repeats 3 \
  >"$out/compare.txt" 2>&1 || rc=$?
say "pinreport compare new against old (history of the same release, --min-repeats 3): exit $rc;" \
  "REGRESSION lines: $(grep -c REGRESSION "$out/compare.txt"), IMPROVEMENT lines: $(grep -c IMPROVEMENT "$out/compare.txt")"
python3 - "$work/old/quick.json" "$work/new/quick.json" >>"$out/compare.txt" 2>&1 <<'PY'
import json, sys
old, new = (json.load(open(p)) for p in sys.argv[1:3])
runs = {r["id"]: r for r in old["runs"]}
same = differ = 0
for r in new["runs"]:
    o = runs.get(r["id"])
    if o is None:
        continue
    for name, m in r["metrics"].items():
        if m["unit"] != "bytes" or name not in o["metrics"]:
            continue
        if m["median"] == o["metrics"][name]["median"]:
            same += 1
        else:
            differ += 1
            print(f"DIFFERS {r['id']} {name}: old {o['metrics'][name]['median']:.0f} new {m['median']:.0f}")
print(f"bytes metrics, median per run: {same} identical, {differ} different")
PY
tail -1 "$out/compare.txt" | tee -a "$wall"

# --- 3. beside a neighbour: must end disturbed ----------------------------------------------
t=$SECONDS
"$root/build/gpu/tools/pinbench_neighbour" device-burst --bytes 20 --seconds 80 --seed 1 >"$work/logs/neighbour.log" 2>&1 &
neighbour=$!
sleep 3
rc=0
timeout -s INT -k 15 "$(limit 15)" "$new_exe" run scenarios/quick.yaml --only 'quick-overhead/cudaMallocHost/*' \
  -o "$work/neighbour.json" --no-summary >"$work/logs/neighbour-run.log" 2>&1 || rc=$?
kill "$neighbour" 2>/dev/null
wait "$neighbour" 2>/dev/null
cp "$work/neighbour.json" "$out/neighbour.json" 2>/dev/null
say "beside device-burst: pinbench run exit $rc after $((SECONDS - t)) s;" \
  "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("; ".join(r["id"].split("/")[2]+": "+r["status"]+" "+str((r.get("stopping") or {}).get("stopped_at"))+"/"+str(r["plan"]["repeats"]) for r in d["runs"]))' "$work/neighbour.json" 2>&1)"

# --- 4. the new nightly with what is left ---------------------------------------------------
rest=$(($(left) - 15))
if ((rest > 40)); then
  t=$SECONDS
  rc=0
  timeout -s INT "$rest" "$new_exe" run scenarios/nightly.yaml --all-repeats -o "$work/nightly.json" --no-summary \
    >"$work/logs/nightly-run.log" 2>&1 || rc=$?
  cp "$work/nightly.json" "$out/nightly.json" 2>/dev/null
  say "new nightly.yaml (--all-repeats, $rest s left for it): pinbench run exit $rc after $((SECONDS - t)) s" \
    "$(grep -a '^pinbench: repeats\|runs finished' "$work/logs/nightly-run.log" | tail -1)"
else
  say "new nightly.yaml: not run, $rest s left"
fi

python3 "$root/results/answer-in-a-minute/scripts/phases.py" "$work"/old/quick.json "$work"/new/quick.json \
  "$work"/neighbour.json "$work"/nightly.json >"$out/phases.txt" 2>&1
cp "$work"/old/*.md "$work"/new/*.md "$work"/*/run.log "$work/logs/" 2>/dev/null
tar -czf "$out/logs.tar.gz" -C "$work" logs
say "whole call: $SECONDS s"
