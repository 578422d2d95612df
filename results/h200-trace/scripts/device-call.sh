#!/usr/bin/env bash
# The device call that produced this folder (issue 19): one H200, our Linux control, not the
# users' Windows answer. Builds pinbench, the injection library, the C++ workload and the
# neighbour; traces the C++ workload (all APIs, then API groups apart), the PyTorch DataLoader
# workload (0, 2, 4, 8 workers), the DataLoader beside a bursting and beside a steady neighbour,
# and cancels a trace with SIGINT, SIGTERM and SIGKILL; times pinning calls with and without
# the injection, alternating, in one run. Run from the repository root with $OUT set.
set -uo pipefail
set -m  # background jobs keep SIGINT (a non-interactive shell would ignore it for them)
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real -DPINBENCH_BUILD_TESTS=OFF -DPINBENCH_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build --preset linux -j16 --target pinbench pinbench_trace_inject pin_each_api pinbench_neighbour 2>&1 | tail -1
B=build/linux
P=$B/harness/pinbench
W=$B/scenarios/workloads/pin_each_api
N=$B/tools/pinbench_neighbour
DL=scenarios/workloads/dataloader_pinned.py
mkdir -p "$OUT/t"
log() { echo "$*" | tee -a "$OUT/t/log.txt"; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv; uname -r; python3 -c 'import torch; print("torch", torch.__version__)'; } > "$OUT/t/machine.txt" 2>&1
# 1. The C++ workload: every entry point at once (4.78 GiB at the peak), 12 native frames a call.
$P trace -o "$OUT/t/trace-pin-each-api.json" --stack 12 -- $W --scale 1 --hold-ms 1500 > "$OUT/t/pin-each-api.stdout" 2>> "$OUT/t/stderr.txt"
log "pin-each-api rc=$?"
# 2. The same in groups, to see which API costs what at the device.
#    Touched by the device (the default) and untouched (--touch 0).
for touch in 1 0; do
  for g in malloc_host,host_alloc,register,cu_alloc_host,cu_host_alloc vmm pool malloc_host; do
    $P trace -o "$OUT/t/trace-apis-${g//,/+}-touch$touch.json" -- $W --apis $g --touch $touch --scale 1 --hold-ms 800 --timing-calls 0 >> "$OUT/t/apis.stdout" 2>> "$OUT/t/stderr.txt"
    log "apis $g touch $touch rc=$?"
  done
done
# 3. Overhead: untraced and traced alternately, 6 rounds of 100 timed pin/unpin pairs each.
for round in 1 2 3 4 5 6; do
  for mode in plain traced; do
    t0=$(date +%s%N)
    if [[ $mode == plain ]]; then $W --apis malloc_host --scale 0.25 --hold-ms 0 --timing-calls 100 > /tmp/o.json
    else $P trace -o "$OUT/t/overhead-traced-$round.json" -- $W --apis malloc_host --scale 0.25 --hold-ms 0 --timing-calls 100 > /tmp/o.json 2>/dev/null; fi
    t1=$(date +%s%N)
    echo "{\"round\": $round, \"mode\": \"$mode\", \"wall_ms\": $(( (t1 - t0) / 1000000 )), \"workload\": $(tail -1 /tmp/o.json)}" >> "$OUT/t/overhead.jsonl"
  done
done
# 4. The DataLoader workload: 300 MiB batches, 9 kept alive, pin_memory=True.
for n in 0 2 4 8; do
  $P trace -o "$OUT/t/trace-dataloader-w$n.json" --stack 16 -- python3 $DL --num-workers $n > "$OUT/t/dataloader-w$n.stdout" 2>> "$OUT/t/stderr.txt"
  log "dataloader w$n rc=$?"
done
# 5. Beside neighbours: one bursting cudaMalloc/cudaFree, one holding 4 GiB steadily.
$N device-burst --seconds 20 --seed 3 > /dev/null 2>&1 &
nb=$!; sleep 2
$P trace -o "$OUT/t/trace-dataloader-burst.json" -- python3 $DL --num-workers 2 > /dev/null 2>> "$OUT/t/stderr.txt"
log "beside burst rc=$?"; kill $nb 2>/dev/null; wait $nb 2>/dev/null
$N steady --bytes 4 --seconds 25 > /dev/null 2>&1 &
nb=$!; sleep 4
$P trace -o "$OUT/t/trace-dataloader-steady.json" -- python3 $DL --num-workers 2 > /dev/null 2>> "$OUT/t/stderr.txt"
log "beside steady rc=$?"; kill $nb 2>/dev/null; wait $nb 2>/dev/null
# 6. Cancelled 6 s in (the peak is held 8 s): what is left on the GPU 2 s later.
for sig in INT TERM KILL; do
  $P trace -o "$OUT/t/trace-cancel-$sig.json" -- python3 $DL --num-workers 2 --hold-ms 8000 > /dev/null 2>> "$OUT/t/stderr.txt" &
  pid=$!; sleep 6
  log "cancel $sig: before: $(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' ')"
  kill -$sig $pid; wait $pid; rc=$?
  sleep 2
  log "cancel $sig: rc=$rc after 2 s: compute apps [$(nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader | tr '\n' ' ')] python [$(pgrep -f dataloader_pinned | tr '\n' ' ')] trace file: $(test -f "$OUT/t/trace-cancel-$sig.json" && echo written || echo none)"
done
cd "$OUT" && tar czf traces.tgz t && rm -rf t
