#!/usr/bin/env bash
# pinbench budget as users run it (Linux control on the lent GPU machine, not Windows): cancelled
# halfway by SIGINT, SIGTERM and SIGKILL, then beside a neighbour that allocates and frees device
# memory (tools/neighbour device-burst) and beside a steady one (steady --bytes 20). After each:
# is anything still pinned (MemAvailable back, no pinbench process, no compute process on the GPU)?
#   bash results/h100-budget/scripts/cancel-and-neighbour.sh PINBENCH NEIGHBOUR OUT
set -u
pinbench=${1:?PINBENCH}
neighbour=${2:?NEIGHBOUR}
out=${3:?OUT}
mkdir -p "$out"
avail() { awk '/^MemAvailable:/ {printf "%.2f", $2 / 1048576}' /proc/meminfo; }
after() {  # NAME: the state two seconds after the process ended
  sleep 2
  echo "$1: after: MemAvailable $(avail) GiB; pinbench processes: $(pgrep -c -x pinbench || true);" \
    "GPU compute processes: $(nvidia-smi --query-compute-apps=pid --format=csv,noheader | wc -l);" \
    "GPU used $(nvidia-smi --query-gpu=memory.used --format=csv,noheader)"
}
echo "start: MemAvailable $(avail) GiB"
for sig in INT TERM KILL; do
  "$pinbench" budget --cap 32GiB --time-limit 60 -o "$out/cancel-$sig.json" >"$out/cancel-$sig.out" 2>&1 &
  pid=$!
  sleep 12
  echo "SIG$sig at 12 s: MemAvailable $(avail) GiB while running; children: $(pgrep -c -P $pid || true)"
  kill -s "$sig" "$pid"
  wait "$pid"
  rc=$?
  echo "SIG$sig: exit $rc; document: $( [[ -s $out/cancel-$sig.json ]] && python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print('complete', d.get('complete'), 'interrupted', d.get('interrupted'))" "$out/cancel-$sig.json" 2>&1 || echo none)"
  after "SIG$sig"
done
for mode in device-burst steady; do
  if [[ $mode == steady ]]; then "$neighbour" steady --bytes 20 --seconds 70 >"$out/neighbour-$mode.log" 2>&1 &
  else "$neighbour" device-burst --seconds 70 --seed 1 >"$out/neighbour-$mode.log" 2>&1 & fi
  npid=$!
  sleep 3
  "$pinbench" budget --cap 8GiB --time-limit 40 -o "$out/beside-$mode.json" >"$out/beside-$mode.out" 2>&1
  echo "beside $mode: exit $?"
  grep -E "VRAM|safe budget|disturb" "$out/beside-$mode.out"
  kill "$npid" 2>/dev/null; wait "$npid" 2>/dev/null
  after "beside $mode"
done
