#!/usr/bin/env bash
# pinbench budget beside a neighbour, after the parent's NVML watch over the held phase: quiet,
# beside a steady neighbour (holds 20 GiB), beside a device-burst one (allocates and frees).
#   bash results/h100-budget/scripts/beside-neighbour.sh PINBENCH NEIGHBOUR OUT
set -u
pinbench=${1:?PINBENCH}
neighbour=${2:?NEIGHBOUR}
out=${3:?OUT}
mkdir -p "$out"
for mode in quiet steady device-burst; do
  npid=""
  case $mode in
    steady) "$neighbour" steady --bytes 20 --seconds 60 >"$out/neighbour-$mode.log" 2>&1 & npid=$! ;;
    device-burst) "$neighbour" device-burst --seconds 60 --seed 1 >"$out/neighbour-$mode.log" 2>&1 & npid=$! ;;
  esac
  [[ -n $npid ]] && sleep 3
  "$pinbench" budget --cap 8GiB --time-limit 30 -o "$out/budget-$mode.json" >"$out/budget-$mode.out" 2>&1
  echo "$mode: exit $?"
  grep -E "VRAM|safe budget" "$out/budget-$mode.out"
  [[ -n $npid ]] && { kill "$npid" 2>/dev/null; wait "$npid" 2>/dev/null; }
  sleep 1
done
