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
#   build.log     the build of build/gpu (none when PINBENCH was given)
#   gpu.txt       nvidia-smi -L
# A documented outcome: exit 128+N with one "stopped by" line and a valid file or none; or, for
# a signal that came after the run ended, the run's own exit code. Never a json error or exit 3
# with no file.
#
# Usage: ci/signals_gpu.sh [OUT [PINBENCH]]   (OUT: default $OUT, as the device tool sets it;
#        PINBENCH: default $PINBENCH_EXE, else pinbench is built into build/gpu first (nvcc, no
#        tests, no benchmarks, .deps/xxhash carried; a few minutes on 16 cores), the log in
#        OUT/build.log)
# Exit code: 0 every case documented; 1 a case outside; 2 usage or no GPU; 3 the build failed.
set -u
SECONDS=0

out="${1:-${OUT:-}}"
[[ -n $out ]] || { echo "usage: ci/signals_gpu.sh OUT [PINBENCH] (or OUT=... in the environment)" >&2; exit 2; }
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
mkdir -p "$out" || exit 2
# Without a GPU every run ends on its own at once (exit 3, no file): nothing here to measure.
nvidia-smi -L >"$out/gpu.txt" 2>&1 || { echo "signals_gpu: no GPU here (nvidia-smi -L failed); nothing measured" >&2; exit 2; }
pinbench="${2:-${PINBENCH_EXE:-}}"
# None given: build/gpu is built (again: ninja rebuilds only what changed, so a warm machine's
# build of another tree is never what is tested).
if [[ -z $pinbench ]]; then
  build_start=$SECONDS
  if ! { cmake -S "$root" -B "$root/build/gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CUDA_ARCHITECTURES=90-real -DPINBENCH_BUILD_BENCHMARKS=OFF -DPINBENCH_BUILD_TESTS=OFF &&
    cmake --build "$root/build/gpu" --target pinbench -j "$(nproc)"; } >"$out/build.log" 2>&1; then
    tail -n 20 "$out/build.log" >&2
    echo "signals_gpu: the build failed ($out/build.log)" >&2
    exit 3
  fi
  echo "built build/gpu/harness/pinbench in $((SECONDS - build_start)) s" >>"$out/build.log"
  pinbench="$root/build/gpu/harness/pinbench"
fi
[[ -x $pinbench ]] || { echo "signals_gpu: no pinbench at $pinbench" >&2; exit 2; }
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
    # Cases start until 330 s after the script began (a build included), so that with the
    # outputs' bounded steps below the whole call ends within 9 minutes.
    ((SECONDS > 330)) && break 2
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
timeout 60 "$pinbench" run --backend replay --from "$src" --only 'quick-overhead/*/64MiB/*' -o "$work/fifo" --no-summary \
  >/dev/null 2>&1
rc=$?
wait "$reader"
printf 'run -o FIFO\t%s\t%s bytes\t%s\n' "$rc" "$(wc -c <"$work/from-fifo")" "$(link_state)" >>"$out/outputs.tsv"
timeout -k 10 90 "$pinbench" budget -o /dev/null --cap 1GiB --time-limit 20 >/dev/null 2>&1
printf 'budget -o /dev/null\t%s\t-\t%s\n' "$?" "$(link_state)" >>"$out/outputs.tsv"
[[ -L /dev/stdout ]] || { fails=$((fails + 1)); echo "FAIL: /dev/stdout is no longer a link" >>"$out/summary.txt"; }

{
  echo "signals: $(($(wc -l <"$out/signals.tsv") - 1)) cases, $fails outside the documented outcomes"
  echo "done in $((SECONDS - start)) s on $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -n 1)"
} >>"$out/summary.txt"
cat "$out/summary.txt"
((fails == 0))
