#!/usr/bin/env bash
# A second short device call (results/answer-in-a-minute/probe/README.md): quick.yaml's overhead
# runs with the parent holding the driver and with --fresh-driver, one after the other on one
# machine (every cost must be identical, the held one faster), and the new `pinbench budget`.
#   run(carry=[".deps/xxhash"], command="bash results/answer-in-a-minute/probe/ab-call.sh")
set -u
out=${OUT:?OUT}
nvidia-smi -L | tee "$out/steps.txt"
step() {  # NAME COMMAND...: its wall time, a line in steps.txt
  local name=$1 t=$EPOCHREALTIME rc=0
  shift
  "$@" >"$out/$name.log" 2>&1 || rc=$?
  python3 -c "import sys; print(f'{sys.argv[1]:<28} exit {sys.argv[2]} after {float(sys.argv[4]) - float(sys.argv[3]):.1f} s')" \
    "$name" "$rc" "$t" "$EPOCHREALTIME" | tee -a "$out/steps.txt"
}
step build bash -c 'cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
  -DPINBENCH_BUILD_BENCHMARKS=OFF -DPINBENCH_BUILD_TESTS=OFF && cmake --build build/gpu --target pinbench -j16'
pb=build/gpu/harness/pinbench
step overhead-held $pb run scenarios/quick.yaml --only 'quick-overhead/*' -o "$out/held.json" --no-summary
step overhead-fresh $pb run scenarios/quick.yaml --only 'quick-overhead/*' -o "$out/fresh.json" --no-summary --fresh-driver
step budget $pb budget -o "$out/budget.json"
python3 - "$out/held.json" "$out/fresh.json" <<'PY' | tee -a "$out/steps.txt"
import json, sys
held, fresh = (json.load(open(p)) for p in sys.argv[1:3])
same = diff = 0
for a, b in zip(held["runs"], fresh["runs"]):
    assert a["id"] == b["id"]
    for name, m in a["metrics"].items():
        if m.get("unit") != "bytes" or name not in b["metrics"]:
            continue
        if m["median"] == b["metrics"][name]["median"]:
            same += 1
        else:
            diff += 1
            print("differs:", a["id"], name, m["median"], b["metrics"][name]["median"])
print(f"bytes medians, held against fresh: {same} identical, {diff} different")
print("parent_driver:", held["environment"].get("parent_driver"), fresh["environment"].get("parent_driver"))
for doc, label in ((held, "held"), (fresh, "fresh")):
    ph = {}
    for r in doc["runs"]:
        for a in r["repeats"]:
            for k, v in a.get("phases_ms", {}).items():
                ph[k] = ph.get(k, 0) + v
            ph["context"] = ph.get("context", 0) + a.get("timings_ms", {}).get("context", 0)
    print(label, {k: round(v / 1000, 1) for k, v in sorted(ph.items())}, doc["started_at"], doc["finished_at"])
PY
tar -czf "$out/logs.tar.gz" -C "$out" --remove-files $(cd "$out" && ls *.log)
