#!/usr/bin/env bash
# Device call 3: what is left right after a SIGKILL of `pinbench run` on the GPU. Call 2 saw one
# pinbench process 2 s after the kill while the GPU listed no compute process; this samples
# every pinbench process (state, parent, age) 0.5 to 10 s after kills at 10, 20 and 30 s.
set -uo pipefail
mkdir -p "$OUT"
if [[ ! -x build/linux/harness/pinbench ]]; then
  cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real >/dev/null 2>&1 &&
    cmake --build --preset linux -j16 --target pinbench >"$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
fi
echo "pid 1: $(ps -o comm= -p 1)"
for at in 10 20 30; do
  build/linux/harness/pinbench run scenarios/quick.yaml -o "/tmp/killed-$at.json" >/dev/null 2>&1 &
  pid=$!
  sleep "$at"
  echo "== killed at $at s: pid $pid; before: $(ps -eo pid,ppid,stat,comm | awk '$4=="pinbench"' | tr -s ' ' | tr '\n' ';')"
  kill -KILL "$pid"; wait "$pid" 2>/dev/null
  t0=$(date +%s.%N)
  for after in 0.5 1 2 5 10; do
    sleep "$(python3 -c "import time; print(max(0, $t0 + $after - time.time()))")"
    echo "  +$after s: pinbench: $(ps -eo pid,ppid,stat,etimes,comm | awk '$5=="pinbench"' | tr -s ' ' | tr '\n' ';') gpu: $(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ';')"
  done
  build/linux/harness/pinbench doctor >/dev/null 2>&1; echo "  doctor exit $?; work dirs left: $(ls -d /tmp/pinbench-$pid-* 2>/dev/null | wc -l)"
done 2>&1 | tee "$OUT/kill-samples.txt"
