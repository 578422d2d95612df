#!/usr/bin/env bash
# The end-to-end check of `pinreport advise` (issue 44) on a GPU machine: two PyTorch programs no
# unit test was written against (scripts/train_loop.py: a DataLoader with pin_memory=True;
# scripts/staging_loop.py: a pinned staging tensor) are traced, advised, changed as each option
# says (--mode) and traced again; scripts/compare.py sets the predicted pinned bytes, VRAM and copy
# speed beside the measured ones. README.md has the commands and what each file holds.
#
#   bash results/advice/run_on_gpu.sh PINBENCH STORE OUT
#     PINBENCH  a built pinbench (build/gpu/harness/pinbench; its injection library beside it)
#     STORE     a store of this machine made beforehand (pinbench run scenarios/nightly.yaml --store STORE)
#     OUT       the output folder (created)
#   Environment: PYTHON (python3), ADVICE_DEADLINE_S (175: no step starts after it; one lasts 45 s at most),
#     BENCH_DIR (the transfer_bench / staging_bench folder; default: beside pinbench's build),
#     BENCH_FILES (space-separated benchmark JSON to use where BENCH_DIR has no programs),
#     ADVICE_BUDGET (a `pinbench budget -o` document of this machine, given to pinreport advise),
#     ADVICE_ANALYSE_ONLY=1 (no tracing: advise and compare the traces already in OUT),
#     ADVICE_DRY_RUN=double (no GPU: the test-double driver, its CUPTI and traced_program stand in
#     for the GPU and both programs; checks the plumbing, measures nothing).
# Every step has a timeout; the script ends in under 4 minutes and exits 0 when every step it
# started finished (the programs' and pinreport's exit codes are in OUT/log.txt), 2 on bad
# arguments, 1 when a step failed.
set -uo pipefail
if [[ $# -ne 3 ]]; then
  awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "$0" >&2
  exit 2
fi
root=$(cd "$(dirname "$0")/../.." && pwd)
PINBENCH=$(realpath "$1") STORE=$2 OUT=$3
[[ -x $PINBENCH ]] || { echo "run_on_gpu.sh: $1 is not an executable pinbench" >&2; exit 2; }
[[ -d $STORE ]] || { echo "run_on_gpu.sh: $STORE is not a store directory" >&2; exit 2; }
mkdir -p "$OUT" || exit 2
OUT=$(realpath "$OUT")
PY=${PYTHON:-python3}
DEADLINE=${ADVICE_DEADLINE_S:-175}
HARD_LIMIT=225 # seconds: every step's timeout is cut to what is left of it, so the whole ends in time
scripts="$root/results/advice/scripts"
failed=0
start=$SECONDS
log() { echo "[$((SECONDS - start)) s] $*" | tee -a "$OUT/log.txt"; }
late() { ((SECONDS - start > DEADLINE)); }
limit() { # SECONDS -> the step's timeout: at most SECONDS, at most what is left of HARD_LIMIT
  local left=$((HARD_LIMIT - (SECONDS - start)))
  echo $((left < $1 ? (left > 1 ? left : 1) : $1))
}

# pinreport from the source tree (as ci/main.sh does without a .venv); carried wheels where the
# machine's python lacks jsonschema (results/h200-main-answer/README.md).
if compgen -G "$root/.whl/*.whl" >/dev/null; then
  "$PY" -m pip install -q --no-index --no-deps --no-compile --target /tmp/advice-site "$root"/.whl/*.whl || true
  export PYTHONPATH=/tmp/advice-site${PYTHONPATH:+:$PYTHONPATH}
fi
export PYTHONPATH="$root/reports${PYTHONPATH:+:$PYTHONPATH}"
export PINBENCH_EXE=$PINBENCH # pinreport upgrades older stored files through it

program_cmd() { # PROGRAM MODE -> the command line to trace
  if [[ ${ADVICE_DRY_RUN:-} == double ]]; then
    echo "$double_dir/program/traced_program"
  else
    echo "$PY $scripts/$1.py --mode $2"
  fi
}

if [[ ${ADVICE_DRY_RUN:-} == double ]]; then
  double_dir=$(dirname "$PINBENCH")/tests/doubles/driver
  [[ -x $double_dir/program/traced_program ]] || { echo "run_on_gpu.sh: no test double under $double_dir" >&2; exit 2; }
  printf 'total_memory = 4GiB\ncontext_cost = 300MiB\npin_cost_per_gib.cuMemHostAlloc = 2MiB\nstate = %s/double.state\n' "$OUT" >"$OUT/double-script.txt"
  export LD_LIBRARY_PATH="$double_dir/current${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export PINBENCH_DRIVER_DOUBLE="$OUT/double-script.txt" PINBENCH_CUPTI_LIBRARY="$double_dir/cupti/libcupti.so"
  log "DRY RUN against the test-double driver: nothing here is a measurement"
fi

{
  date -u
  nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv 2>&1 || echo "no nvidia-smi"
  "$PY" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda)' 2>&1
  "$PINBENCH" --version 2>&1 | head -1
} >"$OUT/machine.txt"

trace_run() { # PROGRAM MODE [ENV=VALUE ...]: one traced run, at most 45 s
  local program=$1 mode=$2 name=$1-$2 probe=0
  shift 2
  [[ $# -gt 0 ]] && name=$program-hostreg probe=1 # a probe of PyTorch: its failure is a finding, logged
  if late; then log "$name: skipped (past the ${DEADLINE} s deadline)"; return; fi
  local t
  t=$(limit 45)
  # shellcheck disable=SC2046 # the command line is split on purpose
  env "$@" timeout -k 5 "$t" "$PINBENCH" trace -o "$OUT/$name.trace.json" --stack 16 --timeout $((t > 6 ? t - 5 : 1)) -- \
    $(program_cmd "$program" "$mode") >"$OUT/$name.stdout" 2>"$OUT/$name.stderr"
  local rc=$?
  log "$name: pinbench trace exit $rc ($(tail -1 "$OUT/$name.stdout" 2>/dev/null))"
  [[ $rc -eq 0 || $probe -eq 1 ]] || failed=1
}

bench_files=()
bench_run() { # NAME FILTER
  local exe=$bench_dir/$1
  [[ -x $exe ]] || return 0
  if late; then log "$1: skipped (deadline)"; return; fi
  timeout -k 5 "$(limit 40)" "$exe" --benchmark_filter="$2" --benchmark_out="$OUT/$1.json" --benchmark_out_format=json \
    >"$OUT/$1.log" 2>&1
  local rc=$?
  log "$1 (filter $2): exit $rc"
  [[ $rc -eq 0 ]] && bench_files+=("$OUT/$1.json")
}

if [[ ${ADVICE_ANALYSE_ONLY:-} != 1 ]]; then
  # 1. This machine's copy speeds at the programs' sizes (150 MiB and 2.5 GiB transfers): the rows
  #    the advice reads, a few seconds instead of the full benchmarks' minutes.
  bench_dir=${BENCH_DIR:-$(dirname "$PINBENCH")/../benchmarks}
  if [[ ${ADVICE_DRY_RUN:-} != double ]]; then
    bench_run transfer_bench '^transfer/(pinned|pageable)/h2d/(64MiB|256MiB|1GiB|4GiB)/'
    bench_run staging_bench '^staging(_baseline/pinned/h2d/(1GiB|4GiB)/|/h2d/(1GiB|4GiB)/K:2/C:32MiB/)'
  fi
  # 2. The programs as they are, then each changed as an option says, most telling first.
  trace_run train_loop as_is
  trace_run staging_loop as_is
fi
if [[ ${#bench_files[@]} -eq 0 && -n ${BENCH_FILES:-} ]]; then read -r -a bench_files <<<"$BENCH_FILES"; fi
[[ ${#bench_files[@]} -eq 0 ]] && bench_files=("$OUT"/transfer_bench.json "$OUT"/staging_bench.json)
bench_args=()
for f in "${bench_files[@]}"; do [[ -f $f ]] && bench_args+=(--bench "$f"); done
[[ -n ${ADVICE_BUDGET:-} ]] && bench_args+=(--budget "$ADVICE_BUDGET")

# 3. The advice on each as-is trace, as text and as JSON (exit 0 nothing worth changing, 1 a
#    change advised, 3 no cost figure: all are answers; 2 or 4 is a failure).
if "$PY" -c 'import pinreport.cli' 2>"$OUT/pinreport-import.txt"; then
  for program in train_loop staging_loop; do
    t=$OUT/$program-as_is.trace.json
    [[ -f $t ]] || { log "$program: no as-is trace, no advice"; failed=1; continue; }
    if late; then log "$program: advice skipped (deadline)"; failed=1; continue; fi
    timeout -k 5 "$(limit 30)" "$PY" -m pinreport advise "$t" --store "$STORE" "${bench_args[@]}" >"$OUT/$program-advice.txt" 2>&1
    rc_text=$?
    timeout -k 5 "$(limit 30)" "$PY" -m pinreport advise "$t" --store "$STORE" "${bench_args[@]}" --json >"$OUT/$program-advice.json" 2>"$OUT/$program-advice.stderr"
    rc=$?
    log "$program: pinreport advise exit $rc (text $rc_text): $(grep -m1 'verdict:' "$OUT/$program-advice.txt")"
    [[ $rc -eq 0 || $rc -eq 1 || $rc -eq 3 ]] || failed=1
  done
else
  log "pinreport cannot be imported here ($(tail -1 "$OUT/pinreport-import.txt")): carry .whl, or run"
  log "  ADVICE_ANALYSE_ONLY=1 bash results/advice/run_on_gpu.sh PINBENCH STORE $OUT   on a machine with pinreport"
fi

if [[ ${ADVICE_ANALYSE_ONLY:-} != 1 ]]; then
  trace_run train_loop exact
  trace_run staging_loop exact
  trace_run staging_loop ring
  trace_run train_loop ring
  trace_run staging_loop pageable
  trace_run train_loop pageable
  trace_run staging_loop window
  # PyTorch's setting: does pinned_use_cuda_host_register remove the power-of-two rounding?
  trace_run train_loop as_is PYTORCH_CUDA_ALLOC_CONF=pinned_use_cuda_host_register:True
fi

# 4. Predicted against measured.
timeout -k 2 10 "$PY" "$scripts/compare.py" "$OUT" >"$OUT/compare.stdout" 2>&1 || { log "compare.py failed"; failed=1; }
log "done in $((SECONDS - start)) s: $OUT/comparison.md"
exit $failed
