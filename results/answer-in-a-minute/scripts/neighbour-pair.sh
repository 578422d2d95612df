#!/usr/bin/env bash
# The third device call behind results/answer-in-a-minute (README.md), on the machine the second call left
# warm (build/gpu and the first call's build/old still there): one overhead run beside device-burst
# with today's main (build/old) and the new tree (build/gpu), each with the default retries and with
# --disturbance-retries 0, alternating, the neighbour running throughout.
set -u
out=${OUT:?OUT}
[[ -x build/old/harness/pinbench && -x build/gpu/harness/pinbench ]] || { ls build; exit 3; }
build/gpu/tools/pinbench_neighbour device-burst --bytes 20 --seconds 150 --seed 2 >"$out/neighbour.log" 2>&1 &
neighbour=$!
sleep 3
for retries in 3 0; do
  for tree in old gpu; do
    t=$SECONDS
    f=$out/$tree-retries$retries.json
    timeout -s INT -k 10 60 build/$tree/harness/pinbench run scenarios/quick.yaml --disturbance-retries $retries \
      --only 'quick-overhead/cudaMallocHost/64MiB/*' -o "$f" --no-summary >"$out/$tree-retries$retries.log" 2>&1
    rc=$?
    echo "$tree, --disturbance-retries $retries: exit $rc after $((SECONDS - t)) s: $(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("; ".join(r["status"]+" "+str(r.get("stopping"))+" "+str([x["status"] for x in r.get("repeats", [])]) for r in d["runs"]))' "$f" 2>&1)" | tee -a "$out/wall.txt"
  done
done
kill $neighbour 2>/dev/null; wait $neighbour 2>/dev/null
