#!/usr/bin/env bash
# The main job on a Linux machine with an NVIDIA GPU: build, run (after the controls that check
# the probes, which `pinbench run` makes itself) the answer's runs of scenarios/quick.yaml (its
# quick-overhead runs; every run with MAIN_SCOPE=quick), then give the answer: `pinreport
# summary` (what pinning costs per pinned GiB, the reservation rule's verdict, the reserve, what
# changed since the previous driver release in out/store, the pin budget of `pinbench budget`)
# and an HTML report. Everything goes to out/.
# Without a GPU it gives the same answer from the replay backend on the committed H200 results,
# labelled REPLAYED on every line (never a measurement).
#   SKIP_SETUP=1      skip ci/setup-debian.sh (packages already there; a machine without apt)
#   PINBENCH_EXE=P    use this pinbench instead of building (build/linux)
#   PINREPORT=P       use this pinreport (else .venv/bin/pinreport, pinreport on PATH, or
#                     `python3 -m pinreport` with reports/ on PYTHONPATH)
#   MAIN_REPLAY=1     the replay path even where a GPU is present
#   MAIN_SCOPE=quick  every run of scenarios/quick.yaml, every kind (the brief's other claims; about
#                     80 s more on an H100), and the budget's largest single pin; the default,
#                     MAIN_SCOPE=answer, the answer's runs and the budget's held phase only
#   OUT=DIR           instead of out/
# It ends with `ci/main.sh: exit N after S s` and, after a measurement, how many repeats the
# stopping rule saved (docs/scenario-format.md, "Stopping early").
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
SECONDS=0
repeats_line=""
# shellcheck disable=SC2317  # called by the EXIT trap
say_wall() {
  local rc=$?
  [[ -n $repeats_line ]] && echo "${repeats_line#pinbench: }"
  echo "ci/main.sh: exit $rc after $SECONDS s"
}
trap say_wall EXIT
# The answer (cost per pinned GiB, the rule's verdict, the reserve, what changed, the budget) comes
# from quick.yaml's overhead runs; its other kinds test the brief's other claims (quick-count's
# 64 x 64 MiB also enters cudaMallocHost's and cudaHostRegister's fit: README.md). Selected by run
# id, so the ids are those of the whole quick.yaml and stores and compares stay comparable.
# The answer shows the budget's safe budget, which `pinbench budget`'s held phase gives alone:
# --held-only leaves out the largest single pin (about 20 of the budget's 49 s on a fresh H100:
# docs/budget.md, "--held-only"), which every run of quick.yaml keeps.
case ${MAIN_SCOPE:-answer} in
  answer) only=(--only 'quick-overhead/*') budget_phases=(--held-only) ;;
  quick) only=() budget_phases=() ;;
  *)
    # %q: a value with a newline or a terminal escape stays one visible line.
    printf "ci/main.sh: MAIN_SCOPE=%q is not a scope: answer (the default: the answer's runs) or quick %s\n" \
      "$MAIN_SCOPE" "(every run of scenarios/quick.yaml)" >&2
    exit 2
    ;;
esac
[[ ${SKIP_SETUP:-0} == 1 ]] || ci/setup-debian.sh
if [[ -n ${PINBENCH_EXE:-} ]]; then
  pinbench=$PINBENCH_EXE
else
  cmake --preset linux >/dev/null
  cmake --build --preset linux --target pinbench  # what main needs; ci/test.sh builds the rest
  pinbench=$root/build/linux/harness/pinbench
fi
mkdir -p "${OUT:-out}"
out=$(cd "${OUT:-out}" && pwd)

if [[ -n ${PINREPORT:-} ]]; then
  pinreport=("$PINREPORT")
elif [[ -x .venv/bin/pinreport ]]; then
  pinreport=(.venv/bin/pinreport)
elif command -v pinreport >/dev/null; then
  pinreport=(pinreport)
else
  export PYTHONPATH=$root/reports${PYTHONPATH:+:$PYTHONPATH}
  pinreport=(python3 -m pinreport)
fi

# Before any measuring: a pinreport that cannot start (a missing jinja2, scipy, xxhash ...) would
# exit 1, which reads as a regression.
if ! "${pinreport[@]}" --help >/dev/null 2>"$out/pinreport-check.log"; then
  echo "pinbench: ${pinreport[*]} cannot start (pip install -r reports/requirements.txt; $out/pinreport-check.log):" >&2
  tail -3 "$out/pinreport-check.log" >&2
  exit 3
fi

replay=0
if [[ ${MAIN_REPLAY:-0} == 1 ]] || ! nvidia-smi -L >/dev/null 2>&1; then
  replay=1
  echo "pinbench: no NVIDIA GPU here, nothing to measure: the answer below is REPLAYED from the committed"
  echo "H200 results (results/h200-quick/results.json) by the replay backend; it is not a measurement."
  "$pinbench" run --backend replay --from results/h200-quick/results.json \
    --script scenarios/replay/relabel-demo.yaml "${only[@]}" -o "$out/quick.json" --no-summary 2>"$out/run.log"
  # The real measurement it was replayed from is the previous release: "what changed" shows the
  # cost the script injected (+8 MiB on cudaMallocHost), as a replayed REGRESSION.
  store=$out/replay-store
  rm -rf "$store"
  "$pinbench" store add results/h200-quick/results.json --store "$store" >/dev/null
else
  # No `pinbench doctor` first: `pinbench run` makes the same controls before measuring, records
  # them and fails on them (exit 3); a doctor before it took 4 s of the minute to make them twice.
  store=$out/store  # kept between runs: the next driver release is compared with this one
  # The progress line's eta from the start: this machine's earlier repeat times in the store,
  # else the committed H200 answer's, scaled to this machine as its first repeats come in.
  times=$store
  [[ -f $store/store.json ]] || times=results/h200-main-answer/quick.json
  # A failed or disturbed run (exit 3) still gets its answer; a cancelled one (128+N) does not.
  # No summary from `run` itself: the one below compares with the earlier releases in the store.
  # Its progress lines still go to the terminal; their last ones (the repeats saved) end the job.
  set +e
  "$pinbench" run scenarios/quick.yaml "${only[@]}" -o "$out/quick.json" --no-summary --times-from "$times" 2>&1 |
    tee "$out/run.log"
  rc=${PIPESTATUS[0]}
  set -e
  ((rc < 128)) || exit "$rc"
  repeats_line=$(grep -a '^pinbench: repeats: ' "$out/run.log" | tail -1 || true)
  "$pinbench" store add "$out/quick.json" --store "$store" || echo "pinbench: store add failed: no history kept of this run"
fi

# The pin budget (docs/budget.md): how much one process can pin here now, one line in the answer.
# Measured only on a GPU: the replay backend has no pin limit to find.
budget=()
if ((replay)); then
  echo "pinbench: no pin budget: the replay backend replays costs, it has no driver whose pin limit could be searched"
else
  rc=0
  "$pinbench" budget -o "$out/budget.json" "${budget_phases[@]}" >"$out/budget.out" 2>&1 || rc=$?
  ((rc < 128)) || exit "$rc"
  # exit 3 (a family without an answer, or a neighbour moved device memory) still has a document.
  if [[ -s $out/budget.json ]]; then
    budget=(--budget "$out/budget.json")
  else
    echo "pinbench: pinbench budget wrote no document (exit $rc, $out/budget.out): the answer has no budget line"
  fi
fi

# The answer: exit codes as `pinreport compare` (1 a regression or a rule violation, 3 a failed or
# disturbed run); the job still ends with the summary and the report's path.
status=0
"${pinreport[@]}" html --store "$store" --current "$out/quick.json" "${budget[@]}" -o "$out/report.html" >/dev/null || status=$?
echo
rc=0
"${pinreport[@]}" summary "$out/quick.json" --store "$store" "${budget[@]}" --markdown "$out/summary.md" || rc=$?
((rc <= status)) || status=$rc
# Replayed: the regression is the one the script injected, not a finding; bad input (2), an
# infrastructure failure (3) or a bug (4) still fail the job.
((replay && status == 1)) && status=0
echo
((${#only[@]})) &&
  echo "the brief's other claims: MAIN_SCOPE=quick ci/main.sh (every kind of scenarios/quick.yaml, about 80 s more on an H100, and the budget's largest single pin)"
label=""
((replay)) && label=" (REPLAYED DATA, not a measurement)"
echo "HTML report: $out/report.html$label"
echo "summary: $out/summary.md; results: $out/quick.json"
exit "$status"
