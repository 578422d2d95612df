#!/usr/bin/env bash
# `pinbench budget` on a Linux machine with a GPU (docs/budget.md, "The GPU run"): what the pin budget's
# acceptance asks, in under 6 minutes, everything written under OUT:
#   1. nvidia-smi, free and /proc/meminfo before;
#   2. `pinbench budget` with its defaults (-o budget-default.json);
#   3. a short calibration run (the largest address space a budget child maps with a context);
#   4. `pinbench budget` under an address-space limit it cannot see coming (prlimit --as, else
#      ulimit -v): the calibration's largest address space plus 8 GiB;
#   5. `pinbench budget` under `ulimit -l` 64 MiB (RLIMIT_MEMLOCK; root holds CAP_IPC_LOCK, and the
#      NVIDIA driver does not pin through mlock: expected to change nothing, shown either way);
#   6. meanwhile, an independent count of what was pinned: /proc/meminfo (MemAvailable, MemFree)
#      and every pinbench process's VmSize, VmRSS, VmLck and VmPin, sampled every 0.2 s
#      (samples.tsv);
#   7. nvidia-smi, free and /proc/meminfo after, and summary.txt: per run the budget reported
#      against the largest drop of MemAvailable seen, the time taken, and whether host and device
#      memory came back (nothing stayed pinned).
# Every command is printed and appended to OUT/commands.txt with its exit code.
#
# Usage: ci/budget_gpu.sh OUT [PINBENCH]   (PINBENCH: default $PINBENCH_EXE, else the first of
#        build/{linux,release,ci-nogpu,ci-no-nvcc}/harness/pinbench)
set -u

out="${1:?usage: ci/budget_gpu.sh OUT [PINBENCH]}"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pinbench="${2:-${PINBENCH_EXE:-}}"
if [[ -z $pinbench ]]; then
  for preset in linux release ci-nogpu ci-no-nvcc; do
    if [[ -x $root/build/$preset/harness/pinbench ]]; then
      pinbench="$root/build/$preset/harness/pinbench"
      break
    fi
  done
fi
[[ -n $pinbench && -x $pinbench ]] || { echo "budget_gpu: no pinbench (give PINBENCH or build one)" >&2; exit 2; }
mkdir -p "$out" || exit 2
out="$(cd "$out" && pwd)"
: >"$out/commands.txt"

start=$SECONDS
# Each step is bounded by `timeout`; a step starts only before its own deadline (seconds since the
# start), so that the whole script ends within 6 minutes whatever hangs: at worst 15 + 130 + 55 +
# 100 s of steps, then the after figures (about 30 s), which always run.
deadline=0
say() { printf 'budget_gpu: [%3ds] %s\n' "$((SECONDS - start))" "$*" | tee -a "$out/commands.txt"; }

# run NAME TIMEOUT COMMAND...: prints and records the command, runs it bounded, output to NAME.out
run() {
  local name="$1" limit="$2"
  shift 2
  if ((deadline > 0 && SECONDS - start > deadline)); then
    say "SKIPPED $name: past ${deadline}s"
    return 0
  fi
  say "\$ $*   (> $name.out, timeout ${limit}s)"
  local t0=$SECONDS
  timeout -k 10 "$limit" "$@" >"$out/$name.out" 2>&1
  local rc=$?
  say "  exit $rc after $((SECONDS - t0)) s"
  echo "$name $rc $((SECONDS - t0))" >>"$out/exit_codes.txt"
  return 0
}

meminfo_available() { awk '/^MemAvailable:/ {printf "%.0f\n", $2 * 1024}' /proc/meminfo; }
gpu_used() { nvidia-smi --query-gpu=memory.used --format=csv,noheader,nounits 2>/dev/null | head -1; }

# The sampler: one line per pinbench process (or one with pid 0 when none) every 0.2 s:
#   t_ms label MemAvailable MemFree pid VmSize VmRSS VmLck VmPin   (bytes)
label_file="$out/.label"
echo idle >"$label_file"
sampler() {
  printf 't_ms\tlabel\tmem_available\tmem_free\tpid\tvm_size\tvm_rss\tvm_lck\tvm_pin\n'
  while :; do
    local t label avail free
    t=$(date +%s%3N)
    label=$(cat "$label_file" 2>/dev/null)
    read -r avail free < <(awk '/^MemAvailable:/ {a = $2 * 1024} /^MemFree:/ {f = $2 * 1024} END {printf "%.0f %.0f\n", a, f}' /proc/meminfo)
    # One awk over every process's status (a process that ends meanwhile is skipped).
    awk -v t="$t" -v l="$label" -v a="$avail" -v f="$free" '
      function flush() {
        if (name == "pinbench") { printf "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\n", t, l, a, f, pid, s, r, k, n; seen = 1 }
        name = ""; s = r = k = n = 0
      }
      FNR == 1 { if (NR > 1) flush(); pid = FILENAME; sub("^/proc/", "", pid); sub("/status$", "", pid) }
      /^Name:/ {name = $2} /^VmSize:/ {s = $2 * 1024} /^VmRSS:/ {r = $2 * 1024}
      /^VmLck:/ {k = $2 * 1024} /^VmPin:/ {n = $2 * 1024}
      END { flush(); if (!seen) printf "%s\t%s\t%s\t%s\t0\t0\t0\t0\t0\n", t, l, a, f }' /proc/[0-9]*/status 2>/dev/null
    sleep 0.2
  done
}
sampler >"$out/samples.tsv" 2>/dev/null &
sampler_pid=$!
# Ends only the processes this script started: the sampler, by its pid.
stop_sampler() { kill "$sampler_pid" 2>/dev/null; wait "$sampler_pid" 2>/dev/null; }
trap 'stop_sampler; exit 130' INT TERM

say "pinbench: $pinbench ($("$pinbench" --version 2>&1)); commit $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown); $(uname -srm); uid $(id -u)"

# 1. before
run before-nvidia-smi 15 nvidia-smi
run before-free 10 free -b
cp /proc/meminfo "$out/before-meminfo.txt"
avail_before=$(meminfo_available)
gpu_before=$(gpu_used)
sleep 1

# 2. defaults
echo default >"$label_file"
deadline=60
run budget-default 120 "$pinbench" budget -o "$out/budget-default.json"
echo idle >"$label_file"
sleep 2

# 3. calibration: the address space of a budget child with its context and 512 MiB pinned
echo calibration >"$label_file"
deadline=180
run budget-calibration 45 "$pinbench" budget --cap 512MiB --chunk 256MiB --time-limit 10 \
  -o "$out/budget-calibration.json"
echo idle >"$label_file"
sleep 1
base_vm=$(awk -F'\t' '$2 == "calibration" && $6 > m {m = $6} END {print m + 0}' "$out/samples.tsv")
limit_as=$((base_vm + (8 << 30)))
say "calibration: largest pinbench address space ${base_vm} bytes; the limit below: ${limit_as} bytes"

# 4. an address-space limit it cannot see coming
echo as_limit >"$label_file"
deadline=210
if ((base_vm == 0)); then
  say "SKIPPED as_limit: the calibration saw no pinbench process"
elif command -v prlimit >/dev/null; then
  run budget-as-limit 90 prlimit --as="$limit_as" -- "$pinbench" budget --time-limit 45 -o "$out/budget-as-limit.json"
else
  run budget-as-limit 90 bash -c "ulimit -v $((limit_as / 1024)) && exec \"\$0\" budget --time-limit 45 -o \"\$1\"" \
    "$pinbench" "$out/budget-as-limit.json"
fi
echo idle >"$label_file"
sleep 1

# 5. a locked-memory limit of 64 MiB (or the lower one already set: raising it needs privilege)
echo memlock >"$label_file"
deadline=240
run budget-memlock 45 bash -c "ulimit -l 65536 2>/dev/null; echo \"RLIMIT_MEMLOCK: \$(ulimit -l) KiB\"; exec \"\$0\" budget --cap 4GiB --time-limit 15 -o \"\$1\"" \
  "$pinbench" "$out/budget-memlock.json"
echo idle >"$label_file"

# 7. after
sleep 3
stop_sampler
trap - INT TERM
deadline=0 # the after figures always run
run after-nvidia-smi 15 nvidia-smi
run after-free 10 free -b
cp /proc/meminfo "$out/after-meminfo.txt"
nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv >"$out/after-compute-apps.csv" 2>&1
avail_after=$(meminfo_available)
gpu_after=$(gpu_used)

# The summary: per run, the budget's figures against the independent count.
{
  echo "budget_gpu: $(date -u +%FT%TZ), $((SECONDS - start)) s in all"
  echo "host MemAvailable before ${avail_before} after ${avail_after} bytes; GPU memory.used before ${gpu_before:-?} after ${gpu_after:-?} MiB"
  if [[ -n $avail_before && -n $avail_after ]] && ((avail_before - avail_after < (1 << 30))); then
    echo "host: PASS, MemAvailable came back within 1 GiB (nothing stayed pinned)"
  else
    echo "host: CHECK, MemAvailable is more than 1 GiB below where it started"
  fi
  if [[ -n ${gpu_before:-} && -n ${gpu_after:-} ]] && ((gpu_after - gpu_before <= 2)); then
    echo "device: PASS, memory.used back to its level (within 2 MiB)"
  else
    echo "device: CHECK, memory.used before ${gpu_before:-?} after ${gpu_after:-?} MiB"
  fi
  echo "compute processes after: $(tail -n +2 "$out/after-compute-apps.csv" | wc -l)"
  for label in default calibration as_limit memlock; do
    awk -F'\t' -v l="$label" '
      $2 == l { if (!(first)) {first = $3}; if (min == "" || $3 < min) min = $3
                if ($7 > rss) rss = $7; if ($8 > lck) lck = $8; if ($9 > pin) pin = $9; if ($6 > vm) vm = $6 }
      END { if (first == "") {printf "%s: no samples\n", l; exit}
            printf "%s (independent): largest MemAvailable drop %.2f GiB; largest pinbench VmRSS %.2f GiB, VmLck %.2f GiB, VmPin %.2f GiB, VmSize %.2f GiB\n",
                   l, (first - min) / 2^30, rss / 2^30, lck / 2^30, pin / 2^30, vm / 2^30 }' "$out/samples.tsv"
  done
  if command -v python3 >/dev/null; then
    for name in default calibration as-limit memlock; do
      python3 - "$out/budget-$name.json" "$name" <<'EOF'
import json, sys
path, name = sys.argv[1], sys.argv[2]
try:
    doc = json.load(open(path))
except (OSError, ValueError) as e:
    print(f"{name} (pinbench budget): no document ({e})")
    sys.exit(0)
gib = 2**30
best = doc.get("safe_budget") or {}
print(f"{name} (pinbench budget): safe budget {best.get('bytes', 0) / gib:.2f} GiB, {doc.get('elapsed_s', 0):.1f} s, complete {doc.get('complete')}")
for f in doc.get("families", []):
    if f.get("status") != "ok":
        print(f"  {f['family']}: {f.get('status')}: {f.get('error', '')}")
        continue
    h, s = f["held_at_once"], f["largest_single"]
    cost = f.get("vram_cost_at_budget")
    print(f"  {f['family']}: held {h['bytes'] / gib:.2f} GiB ({h['stopped_by']}), largest single {s['bytes'] / gib:.2f} GiB "
          f"({s['stopped_by']}), failure {f['failure']}, pin {f['pin_s_per_gib']} s/GiB, VRAM at budget "
          f"{'n/a' if cost is None else f'{cost / 2**20:.1f} MiB'}, residual {f.get('device_free_residual')}")
EOF
    done
  else
    echo "(no python3: the budget documents are not summarised here)"
  fi
} >"$out/summary.txt"
rm -f "$label_file"
cat "$out/summary.txt"
say "done: $out"
