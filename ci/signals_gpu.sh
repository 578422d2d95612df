#!/usr/bin/env bash
# Issue 57 on a machine with a GPU: a stop signal at any moment of `pinbench run`'s start-up, and
# outputs written in place, where the start-up is real (the CUDA environment, the controls) and
# not the no-device path the CPU tests see. Everything under OUT, in under 8 minutes:
#   signals.tsv   one line per case: signal, delay, exit code, the results file (none, valid
#                 with `interrupted`, valid without, INVALID), the last line of stderr
#   outputs.tsv   -o /dev/null, -o /dev/stdout into a pipe and into a file, -o a FIFO with a
#                 reader: exit code, what arrived, whether /dev/stdout is still a link
#   summary.txt   the counts, and FAIL lines for any case outside the documented outcomes
#   commands.txt  every command run
# A documented outcome: exit 128+N with one "stopped by" line and a valid file or none; or, for
# a signal that came after the run ended, the run's own exit code. Never a json error or exit 3
# with no file.
#
# Usage: ci/signals_gpu.sh OUT [PINBENCH]   (PINBENCH: default $PINBENCH_EXE, else the first of
#        build/{linux,release,ci-nogpu,ci-no-nvcc}/harness/pinbench; build one with
#        `cmake --preset linux && cmake --build --preset linux --target pinbench`)
set -u

out="${1:?usage: ci/signals_gpu.sh OUT [PINBENCH]}"
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
[[ -n $pinbench && -x $pinbench ]] || { echo "signals_gpu: no pinbench (give PINBENCH or build one)" >&2; exit 2; }
mkdir -p "$out" || exit 2
out="$(cd "$out" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
: >"$out/commands.txt"
start=$SECONDS
python=$(command -v python3 || echo python3)
scenario="$root/scenarios/quick.yaml"

# validity FILE: none, valid-interrupted, valid, INVALID (the harness's own reader, then the schema's
# words: interrupted set or not).
validity() {
  [[ -e $1 ]] || { echo none; return; }
  if "$pinbench" results upgrade "$1" -o - >"$work/upgraded.json" 2>/dev/null; then
    "$python" -c 'import json,sys; d=json.load(open(sys.argv[1])); print("valid-interrupted" if d.get("interrupted") else "valid")' \
      "$work/upgraded.json"
  else
    echo INVALID
  fi
}

printf 'signal\tdelay_ms\texit\tfile\tlast_line\n' >"$out/signals.tsv"
fails=0
for sig in INT TERM HUP; do
  for delay in 0.005 0.02 0.1 0.3 1 3 8; do
    ((SECONDS - start > 360)) && break 2
    results="$work/sig-$sig-$delay.json"
    echo "\$ $pinbench run $scenario -o $results --no-summary & sleep $delay; kill -$sig" >>"$out/commands.txt"
    "$pinbench" run "$scenario" -o "$results" --no-summary >"$work/out" 2>"$work/err" &
    pid=$!
    sleep "$delay"
    kill "-$sig" "$pid" 2>/dev/null
    wait "$pid"
    rc=$?
    file=$(validity "$results")
    last=$(tail -n 1 "$work/err" | tr '\t' ' ' | cut -c1-160)
    printf '%s\t%s\t%s\t%s\t%s\n' "$sig" "$delay" "$rc" "$file" "$last" >>"$out/signals.tsv"
    code=$((128 + $(kill -l "$sig")))
    ok=0
    if [[ $rc -eq $code && $file != INVALID && $(grep -c 'stopped by' "$work/err") -ge 1 ]]; then ok=1; fi
    if [[ $rc -ne $code && $file == valid ]]; then ok=1; fi  # it ended before the signal came
    if grep -q 'json.exception' "$work/err"; then ok=0; fi
    if ((!ok)); then
      fails=$((fails + 1))
      echo "FAIL: SIG$sig after ${delay}s: exit $rc, file $file, $last" >>"$out/summary.txt"
    fi
  done
done

# Outputs written in place (a replay of a committed results file: no GPU time).
src="$root/results/h200-main-answer/quick.json"
printf 'case\texit\tarrived\tdev_stdout_still_a_link\n' >"$out/outputs.tsv"
link_state() { [[ -L /dev/stdout ]] && echo yes || echo NO; }
"$pinbench" results upgrade "$src" -o /dev/null >/dev/null 2>&1
printf 'upgrade -o /dev/null\t%s\t-\t%s\n' "$?" "$(link_state)" >>"$out/outputs.tsv"
n=$("$pinbench" results upgrade "$src" -o /dev/stdout 2>/dev/null | wc -c)
printf 'upgrade -o /dev/stdout | pipe\t%s\t%s bytes\t%s\n' "${PIPESTATUS[0]}" "$n" "$(link_state)" >>"$out/outputs.tsv"
"$pinbench" results upgrade "$src" -o /dev/stdout >"$work/stdout.json" 2>/dev/null
printf 'upgrade -o /dev/stdout > file\t%s\t%s bytes\t%s\n' "$?" "$(wc -c <"$work/stdout.json")" "$(link_state)" >>"$out/outputs.tsv"
mkfifo "$work/fifo"
cat "$work/fifo" >"$work/from-fifo" &
reader=$!
timeout 120 "$pinbench" run --backend replay --from "$src" --only 'quick-overhead/*/64MiB/*' -o "$work/fifo" --no-summary \
  >/dev/null 2>&1
rc=$?
wait "$reader"
printf 'run -o FIFO\t%s\t%s bytes\t%s\n' "$rc" "$(wc -c <"$work/from-fifo")" "$(link_state)" >>"$out/outputs.tsv"
timeout 200 "$pinbench" budget -o /dev/null --cap 1GiB --time-limit 20 >/dev/null 2>&1
printf 'budget -o /dev/null\t%s\t-\t%s\n' "$?" "$(link_state)" >>"$out/outputs.tsv"
[[ -L /dev/stdout ]] || { fails=$((fails + 1)); echo "FAIL: /dev/stdout is no longer a link" >>"$out/summary.txt"; }

{
  echo "signals: $(($(wc -l <"$out/signals.tsv") - 1)) cases, $fails outside the documented outcomes"
  echo "done in $((SECONDS - start)) s on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
} >>"$out/summary.txt"
cat "$out/summary.txt"
((fails == 0))
