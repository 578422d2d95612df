#!/usr/bin/env bash
# The nightly job as a plain script (GitHub Actions, cron, Task Scheduler via ci/nightly.ps1,
# Jenkins, GitLab): build, doctor, run the nightly scenario, measure the pin budget, run the
# benchmarks, add the results and the budget to the baseline store, compare (JUnit), render the
# report and the driver table (every release the store holds), collect everything in --out.
# ci/README.md explains every option and exit code; the workflows only call this script.
#
#   ci/nightly.sh [--scenario FILE] [--only GLOB] [--out DIR]
#                 (--store DIR | --store-branch BRANCH [--store-remote R] [--store-repo DIR]
#                  | --store-home DIR-or-branch:BRANCH)
#                 [--preset NAME] [--build-dir DIR] [--skip-build] [--skip-bench]
#                 [--skip-budget] [--budget-baseline BUDGET]   # pinbench budget; its previous document
#                                                                 # (default: the store's previous release's)
#                 [--report-url TEMPLATE]   # the driver table's links to each night's report (docs/drivers.md)
#                 [--pinbench PATH] [--pinreport PATH]
#                 [--package PATH]   # a packaged pinbench (a wheel's, the zip's): no build, no benchmarks
#                 [--wheelhouse DIR [--python PATH]]   # pinreport from DIR (the zip's), no index, into a venv
#                 [--replay-from RESULTS --replay-script SCRIPT]   # no GPU: replay backend
#                 [--resume]   # continue the cancelled night in --out (its results.json)
#                 [--fuzz-seconds N]   # after the night: ci/fuzz.sh N (default 600; 0: none)
#                 [--property-scale N]   # then the property tests, N times CI's inputs (default 20; 0: none)
#
# Exit code (highest wins, as in pinreport): 0 no regression; 1 a REGRESSION or VIOLATION;
# 2 bad input (scenario, script, options); 3 infrastructure (build, doctor, a failed run or
# control, a disturbed run, benchmarks, store, push); 4 internal error (a bug in a tool).
# $OUT/summary.md says which step decided it; $OUT/disturbed holds the number of runs that
# another process disturbed (pinreport gave no verdict on them).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
SECONDS=0  # the job's wall time, said at its end

usage() { sed -n '8,22p' "$0"; exit 0; }
die_usage() { echo "nightly: $*" >&2; exit 2; }

scenario=$root/scenarios/nightly.yaml
only=()
out=$root/out/nightly
store=""
store_branch=""
store_remote=origin
store_repo=$root
preset=""
build_dir=""
skip_build=0
skip_bench=0
skip_budget=0
budget_baseline=""
report_url=""
pinbench=""
pinreport=""
wheelhouse=""
python=""
replay_from=""
replay_script=""
resume=0
fuzz_seconds=600
property_scale=20

while (($#)); do
  case $1 in
    --scenario) scenario=${2:?}; shift ;;
    --only) only+=(--only "${2:?}"); shift ;;
    --out) out=${2:?}; shift ;;
    --store) store=${2:?}; shift ;;
    --store-branch) store_branch=${2:?}; shift ;;
    --store-home)  # one setting for both homes (the workflows' input): DIR or branch:BRANCH
      case ${2:?} in
        branch:?*) store_branch=${2#branch:} ;;
        branch:) die_usage "--store-home branch: needs a branch name" ;;
        *) store=$2 ;;
      esac
      shift ;;
    --store-remote) store_remote=${2:?}; shift ;;
    --store-repo) store_repo=${2:?}; shift ;;
    --preset) preset=${2:?}; shift ;;
    --build-dir) build_dir=${2:?}; shift ;;
    --skip-build) skip_build=1 ;;
    --skip-bench) skip_bench=1 ;;
    --skip-budget) skip_budget=1 ;;
    --budget-baseline) budget_baseline=${2:?}; shift ;;
    --report-url) report_url=${2:?}; shift ;;
    --pinbench) pinbench=${2:?}; shift ;;
    # A package's pinbench (ci/wheel.py, ci/package.py): nothing to build, and the benchmark
    # programs are not in it (they are CUDA runtime programs, built with nvcc).
    --package) pinbench=${2:?}; skip_build=1; skip_bench=1; shift ;;
    --pinreport) pinreport=${2:?}; shift ;;
    --wheelhouse) wheelhouse=${2:?}; shift ;;
    --python) python=${2:?}; shift ;;
    --replay-from) replay_from=${2:?}; shift ;;
    --replay-script) replay_script=${2:?}; shift ;;
    --resume) resume=1 ;;
    --fuzz-seconds) fuzz_seconds=${2:?}; shift ;;
    --property-scale) property_scale=${2:?}; shift ;;
    -h | --help) usage ;;
    *) die_usage "unknown option '$1' (see ci/README.md)" ;;
  esac
  shift
done

[[ -n $store || -n $store_branch ]] || die_usage "give --store DIR or --store-branch BRANCH"
[[ -z $store || -z $store_branch ]] || die_usage "--store and --store-branch exclude each other"
[[ -z $replay_from || -n $replay_script ]] || die_usage "--replay-from needs --replay-script"
[[ -n $replay_from || -z $replay_script ]] || die_usage "--replay-script needs --replay-from"
replay=0
[[ -n $replay_from ]] && replay=1
[[ $fuzz_seconds =~ ^[0-9]+$ ]] || die_usage "--fuzz-seconds takes a number of seconds"
if ! [[ $property_scale =~ ^[0-9]+$ ]] || ((property_scale > 1000)); then
  die_usage "--property-scale takes a whole number from 0 to 1000"
fi
[[ -z $wheelhouse || -z $pinreport ]] || die_usage "--wheelhouse and --pinreport exclude each other"
[[ -n $wheelhouse || -z $python ]] || die_usage "--python needs --wheelhouse"

# Windows runs the package CI built (ci/package.py windows), never a build of its own.
case "$(uname -s)" in
  MINGW* | MSYS* | CYGWIN*)
    ((skip_build)) || die_usage "on Windows, run the package: --package PATH/pinbench.exe (ci/README.md)" ;;
esac
preset=${preset:-linux}
build_dir=${build_dir:-$root/build/$preset}

mkdir -p "$out" || exit 3
out=$(cd "$out" && pwd)
summary=$out/summary.md
: >"$summary"
status=0                 # the job's exit code so far (max of every step's)
infra_steps=()           # the steps that ended in an infrastructure failure

note() { echo "- $*" | tee -a "$summary" >&2; }
# Records a step's exit code. 4 is an internal error (pinreport's own code for a bug); codes
# outside 0..4 (a crash, a signal) count as infrastructure.
internal_steps=()
record() {
  local step=$1 rc=$2
  ((rc > 4 || rc < 0)) && rc=3
  ((rc == 4)) && internal_steps+=("$step")
  ((rc == 3)) && infra_steps+=("$step")
  ((rc > status)) && status=$rc
  note "$step: exit $rc"
}
disturbed=0              # runs another process disturbed (from pinreport compare's output)
finish() {
  local verdict
  case $status in
    0) verdict="OK: no regression" ;;
    1) verdict="REGRESSION: see junit.xml and report" ;;
    2) verdict="BAD INPUT: a scenario, script or option was rejected" ;;
    4) verdict="INTERNAL ERROR in: ${internal_steps[*]:-unknown} (a bug in the tool, not a regression; see its log)" ;;
    *) verdict="INFRASTRUCTURE FAILURE in: ${infra_steps[*]:-unknown} (not a regression)" ;;
  esac
  ((disturbed > 0)) && verdict="$verdict; $disturbed runs disturbed: no verdict on them"
  ((replay)) && verdict="[REPLAYED] $verdict"
  echo "**nightly: $verdict (exit $status)**" | tee -a "$summary" >&2
  local repeats
  repeats=$(grep -a '^pinbench: repeats: ' "$out/run.log" 2>/dev/null | tail -1)
  [[ -n $repeats ]] && note "${repeats#pinbench: }"
  echo "ci/nightly.sh: exit $status after $SECONDS s" | tee -a "$summary" >&2
  echo "$status" >"$out/exit_code"
  echo "$disturbed" >"$out/disturbed"
  # GitHub Actions shows this on the run page; elsewhere the file is in the artifacts.
  [[ -n ${GITHUB_STEP_SUMMARY:-} ]] && cat "$summary" >>"$GITHUB_STEP_SUMMARY"
  exit "$status"
}

# pinbench run stopped by a signal (exit 128+N): the night was cancelled. Nothing is stored or
# judged; the partial results.json (complete: false) stays for `ci/nightly.sh --resume`.
cancelled() {
  (($1 >= 128)) || return 0
  echo "**nightly: CANCELLED (pinbench run exit $1, signal $(($1 - 128))); $results is partial: continue it with ci/nightly.sh --resume and the same --out**" |
    tee -a "$summary" >&2
  echo "$1" >"$out/exit_code"
  echo "ci/nightly.sh: exit $1 after $SECONDS s" | tee -a "$summary" >&2
  exit "$1"
}

# An executable built on Windows carries .exe; bash finds it either way, -x does not.
exe() { if [[ -f $1.exe ]]; then echo "$1.exe"; else echo "$1"; fi; }

# --- build -------------------------------------------------------------------------------
if ((skip_build)); then
  note "build: skipped"
else
  (cd "$root" && cmake --preset "$preset" && cmake --build --preset "$preset") >"$out/build.log" 2>&1
  rc=$?
  ((rc == 0)) || rc=3
  record build $rc
  ((rc == 0)) || finish
fi
pinbench=$(exe "${pinbench:-$build_dir/harness/pinbench}")
if [[ ! -x $pinbench ]]; then
  record "find pinbench ($pinbench)" 3
  finish
fi
worktree=""  # the store branch's, below
venv=""      # --wheelhouse's
# shellcheck disable=SC2317  # called by the EXIT trap
cleanup() {
  [[ -n $worktree ]] && git -C "$store_repo" worktree remove --force "$worktree" >/dev/null 2>&1
  [[ -n $venv ]] && rm -rf -- "$venv"
  return 0
}
trap cleanup EXIT
# --wheelhouse: pinreport installed from the package's wheelhouse (no index, every wheel's hash
# locked by ci/wheelhouse.lock) into a fresh venv, with --python or the first Python 3.11+ on the
# PATH; none is infrastructure (3), said in the summary.
if [[ -n $wheelhouse ]]; then
  python_ok() { "$@" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; }
  python_cmd=()
  if [[ -n $python ]]; then
    python_ok "$python" && python_cmd=("$python")
  else
    for c in python3 python "py -3"; do
      read -r -a words <<<"$c"
      command -v "${words[0]}" >/dev/null 2>&1 && python_ok "${words[@]}" && { python_cmd=("${words[@]}"); break; }
    done
  fi
  if ((${#python_cmd[@]} == 0)); then
    record "find Python 3.11 or later for pinreport (${python:-python3, python or py -3 on the PATH}; none runs)" 3
    finish
  fi
  venv=$(mktemp -d "${TMPDIR:-/tmp}/pinbench-nightly-venv.XXXXXX") || { record "make a folder for pinreport's venv" 3; finish; }
  venv_python=$venv/bin/python
  [[ $(uname -s) == MINGW* || $(uname -s) == MSYS* ]] && venv_python=$venv/Scripts/python.exe
  { "${python_cmd[@]}" -m venv "$venv" &&
    "$venv_python" -m pip install --disable-pip-version-check --no-index --find-links "$wheelhouse" pinreport; } \
    >"$out/pinreport-install.log" 2>&1
  rc=$?
  ((rc == 0)) || rc=3
  record "install pinreport from $wheelhouse (no index; pinreport-install.log)" $rc
  ((rc == 0)) || finish
  pinreport=$venv/bin/pinreport
  [[ -x $pinreport ]] || pinreport=$venv/Scripts/pinreport.exe
fi
if [[ -z $pinreport ]]; then
  pinreport=$(command -v pinreport || true)
  for c in "$root/.venv/bin/pinreport" "$root/.venv/Scripts/pinreport.exe"; do
    [[ -z $pinreport && -x $c ]] && pinreport=$c
  done
fi
if [[ -z $pinreport || ! -x $pinreport ]]; then
  record "find pinreport (pip install -r reports/requirements.txt -e reports)" 3
  finish
fi

# --- the store's home: a directory, or a git branch checked out in a worktree ------------
index_home=""
if [[ -n $store_branch ]]; then
  worktree=$(mktemp -d "${TMPDIR:-/tmp}/pinbench-store.XXXXXX")
  # A worktree of the job's own checkout shares its remote and credentials.
  if git -C "$store_repo" fetch --quiet "$store_remote" "refs/heads/$store_branch" 2>"$out/store-git.log"; then
    git -C "$store_repo" worktree add --quiet --force -B "$store_branch" "$worktree" FETCH_HEAD >>"$out/store-git.log" 2>&1
  else
    # First night: an orphan branch that holds only the store.
    git -C "$store_repo" worktree add --quiet --detach "$worktree" >>"$out/store-git.log" 2>&1 &&
      git -C "$worktree" checkout --quiet --orphan "$store_branch" >>"$out/store-git.log" 2>&1 &&
      git -C "$worktree" rm -rfq --ignore-unmatch . >>"$out/store-git.log" 2>&1
  fi
  rc=$?
  if ((rc != 0)); then
    record "store branch $store_branch checkout" 3
    finish
  fi
  store=$worktree/store
  # pinreport's history index (store/index) is derived and stays out of the branch (below); it
  # is kept between nights here instead, under the user's cache directory, so a night reads
  # only the night it added (its rows are kept by content: docs/store.md, "The history index").
  index_home="${PINBENCH_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pinbench}/store-index/$store_remote-${store_branch//\//-}"
  if [[ -d $index_home ]]; then
    if ! { rm -rf -- "$store/index" && mkdir -p "$store" && cp -R -- "$index_home" "$store/index"; }; then
      note "store index: not restored from $index_home (rebuilt instead)"
    fi
  fi
fi

# --- doctor: the first step that touches the GPU; nothing is measured unless it passes ----
results=$out/results.json
# A night cancelled earlier (complete: false) is continued, not started again, when asked.
resume_args=()
if ((resume)) && [[ -f $results ]] && grep -q '"complete": false' "$results"; then
  resume_args=(--resume "$results")
  note "resuming the cancelled night in $results"
fi
if ((replay)); then
  note "doctor: skipped (replay backend, no GPU)"
  "$pinbench" run --backend replay --from "$replay_from" --script "$replay_script" -o "$results" \
    "${only[@]}" "${resume_args[@]}" --no-summary >"$out/run.log" 2>&1
  rc=$?
  cancelled $rc
  record "run (replay of $replay_from)" $rc
else
  "$pinbench" doctor --bundle "$out/doctor.json" >"$out/doctor.txt" 2>&1
  rc=$?
  ((rc == 0)) || rc=3   # no GPU, a failed control: infrastructure, never a regression
  record doctor $rc
  ((rc == 0)) || finish
  # --no-summary: the answer comes after the store, against the previous release (below). The
  # stopping rule stays on: a run whose repeats agree to the byte stops at 3, and pinreport compare
  # judges those 3 against the stored nights pooled (docs/scenario-format.md, "Stopping early").
  # --times-from: the eta from earlier nights.
  times_args=()
  [[ -n $store && -f $store/store.json ]] && times_args=(--times-from "$store")
  "$pinbench" run "$scenario" -o "$results" "${only[@]}" "${resume_args[@]}" --no-summary \
    "${times_args[@]}" >"$out/run.log" 2>&1
  rc=$?
  cancelled $rc
  record "run $scenario" $rc
fi
# One neighbour kept the GPU busy: pinbench run stopped within about a minute (docs/disturbance.md).
busy=$(sed -n 's/^pinbench: stopped: \(the GPU is busy: .*\)$/\1/p' "$out/run.log" 2>/dev/null | head -1)
[[ -n $busy ]] && note "${busy%%; the remaining*}; pinbench run stopped, the rest not measured"
run_status=$status
if [[ ! -f $results ]]; then
  # A rejected scenario or script (exit 2) writes no results; anything else is infrastructure.
  ((status == 2)) || record "results file $results" 3
  finish
fi

# --- the pin budget (real GPU only): how much one process can pin here now (docs/budget.md) ---
# Its document stays in $out (budget.json, budget.txt) and is stored beside the night's results
# (below); its line goes into the answer; a budget that shrank since the previous release is a
# REGRESSION: that release's budget is the store's (or --budget-baseline's, when given).
budget_args=()
if ((replay)); then
  note "budget: skipped (replay backend: it has no driver whose pin limit could be searched)"
elif ((skip_budget)); then
  note "budget: skipped (--skip-budget)"
else
  # --held-only: the safe budget, which budget-compare judges; the largest single pin is the
  # nightly scenario's max_pinnable runs' (docs/budget.md, "--held-only"). No --cap: on Windows
  # the default lies above the OS's limit for graphics, so the nightly sees where pins fail and
  # whether that moves between releases; in a container or a batch job the budget stays under
  # the job's memory limit and names it (docs/budget.md, "It never hurts the machine").
  "$pinbench" budget --held-only -o "$out/budget.json" >"$out/budget.txt" 2>&1
  record "budget" $?  # 3: a family without an answer, or a neighbour moved device memory
  if [[ -s $out/budget.json ]]; then
    budget_args=(--budget "$out/budget.json")
    if [[ -n $budget_baseline ]]; then
      "$pinreport" budget-compare "$budget_baseline" "$out/budget.json" >"$out/budget-compare.txt" 2>&1
      record "pinreport budget-compare $budget_baseline" $?
    fi
  fi
fi

# --- benchmarks (real GPU only) --------------------------------------------------------
bench_json=()
if ((replay || skip_bench)); then
  note "benchmarks: skipped"
else
  PINBENCH_BUILD_DIR=$build_dir "$root/benchmarks/run_all.sh" "$out/bench" >"$out/bench.log" 2>&1
  rc=$?
  ((rc == 0)) || rc=3
  record benchmarks $rc
  for f in "$out"/bench/*_bench*.json; do [[ -f $f ]] && bench_json+=(--bench "$f"); done
fi

# --- store: only results of a run that went well become history -------------------------
if ((run_status == 0)); then
  "$pinbench" store add "$results" --store "$store" >"$out/store.log" 2>&1
  rc=$?
  ((rc == 0)) || rc=3
  record "store add ($store)" $rc
  # The budget beside the night's results, under the same key (store version 4, docs/store.md).
  if ((${#budget_args[@]})); then
    "$pinbench" store add "$out/budget.json" --store "$store" >>"$out/store.log" 2>&1
    rc=$?
    ((rc == 0)) || rc=3
    record "store add budget ($store)" $rc
  fi
  # Nights an older pinbench stored in an older results version: rewritten in the current one,
  # which is the only one pinreport reads (docs/store.md, "Older results versions in a store").
  "$pinbench" store upgrade --store "$store" >>"$out/store.log" 2>&1
  rc=$?
  ((rc == 0)) || rc=3
  record "store upgrade ($store)" $rc
else
  note "store add: skipped (the run did not end ok; its numbers are not history)"
fi
# A budget that shrank since the store's previous release (docs/budget.md, "Between releases").
if ((${#budget_args[@]})) && [[ -z $budget_baseline && -f $store/store.json ]]; then
  "$pinreport" budget-compare "$out/budget.json" --store "$store" >"$out/budget-compare.txt" 2>&1
  record "pinreport budget-compare (the store's previous release)" $?
fi

# --- verdicts and report ---------------------------------------------------------------
if [[ -f $store/store.json ]]; then
  "$pinreport" compare --store "$store" --current "$results" --junit "$out/junit.xml" \
    >"$out/compare.txt" 2>"$out/compare.err"
  record "pinreport compare" $?
  # pinreport prints "N runs disturbed: no verdict on them" when another process moved device
  # memory during N runs (docs/results-schema.md, status "disturbed"): infrastructure, never a regression.
  disturbed=$(sed -n 's/^\(\[REPLAYED\] \)\{0,1\}\([0-9][0-9]*\) runs\{0,1\} disturbed: no verdict on them.*/\2/p' \
    "$out/compare.txt" | head -n 1)
  disturbed=${disturbed:-0}
  ((disturbed > 0)) && note "pinreport compare: $disturbed runs disturbed: no verdict on them"
  "$pinreport" html --store "$store" --current "$results" "${bench_json[@]}" "${budget_args[@]}" \
    --drivers-table drivers.html -o "$out/report.html" >"$out/html.log" 2>&1
  rc=$?
  if ((rc != 0)) && ! "$pinreport" html --help >/dev/null 2>&1; then
    note "pinreport html: not available in this pinreport; no HTML report (compare.txt has the verdicts)"
  else
    record "pinreport html" $rc
  fi
  # The answer (cost per pinned GiB, the rule, the reserve, what changed) in the job summary;
  # its exit code is compare's, already recorded.
  "$pinreport" summary "$results" --store "$store" "${budget_args[@]}" --markdown "$out/answer.md" >"$out/answer.txt" 2>&1
  if [[ -s $out/answer.md ]]; then { echo; cat "$out/answer.md"; echo; } >>"$summary"; fi
  # The driver table: every release the store holds, per machine group, side by side
  # (docs/drivers.md); the report links to drivers.html, the job summary shows the newest releases.
  drivers_args=(--html "$out/drivers.html" --json "$out/drivers.json" --markdown "$out/drivers.md" --max-releases 5)
  ((replay)) && drivers_args+=(--replay)  # the replayed night, labelled: a replay has no real one
  [[ -n $report_url ]] && drivers_args+=(--report-url "$report_url")
  "$pinreport" drivers --store "$store" "${drivers_args[@]}" >"$out/drivers.txt" 2>"$out/drivers.err"
  record "pinreport drivers" $?
  if [[ -s $out/drivers.md ]]; then { echo; cat "$out/drivers.md"; echo; } >>"$summary"; fi
else
  record "store $store has no store.json" 3
fi

# --- the store branch: commit and push, rebasing when another runner pushed first --------
if [[ -n $store_branch ]] && ((run_status == 0)); then
  g() { git -C "$worktree" -c user.name="${GIT_AUTHOR_NAME:-pinbench nightly}" \
    -c user.email="${GIT_AUTHOR_EMAIL:-pinbench-nightly@localhost}" "$@"; }
  # The index back to the cache, whole or not at all (a broken one is rebuilt, never trusted).
  if [[ -d $store/index ]]; then
    if ! { mkdir -p -- "$(dirname "$index_home")" && rm -rf -- "$index_home.new" &&
      cp -R -- "$store/index" "$index_home.new" && rm -rf -- "$index_home" &&
      mv -- "$index_home.new" "$index_home"; }; then
      note "store index: not kept in $index_home"
    fi
  fi
  # Never the writer's lock or a half-written file (docs/store.md), nor pinreport's summary
  # index (store/index: derived, about 8 MB at a year of nights and rewritten every night, so
  # committing it grew the branch by a year's index a night; each night rebuilds it instead,
  # docs/store.md "The store on a git branch"). A branch that tracked it stops tracking it.
  g rm -r -q --cached --ignore-unmatch -- store/index >>"$out/store-git.log" 2>&1
  g add -A -- store ':(exclude)store/.lock' ':(exclude)store/.lock.*' ':(exclude)*.tmp.*' \
    ':(exclude)store/index' >>"$out/store-git.log" 2>&1
  if g diff --cached --quiet; then
    note "store branch $store_branch: nothing new to commit"
  else
    g commit --quiet -m "nightly: $(hostname) $(basename "$results") $(date -u +%Y-%m-%dT%H:%M:%SZ)" \
      >>"$out/store-git.log" 2>&1
    # The worktree is temporary: its untracked index would only block a rebase onto a branch
    # that still tracks one.
    rm -rf -- "$worktree/store/index"
    pushed=1
    for attempt in 1 2 3 4 5; do
      if g push --quiet "$store_remote" "HEAD:refs/heads/$store_branch" >>"$out/store-git.log" 2>&1; then
        pushed=0
        break
      fi
      # Non-fast-forward: stored files have unique names, so a rebase never conflicts.
      sleep $((attempt * 2))
      if g fetch --quiet "$store_remote" "refs/heads/$store_branch" >>"$out/store-git.log" 2>&1; then
        g rebase --quiet FETCH_HEAD >>"$out/store-git.log" 2>&1 || g rebase --abort >/dev/null 2>&1
      fi
    done
    ((pushed == 0)) && note "store branch $store_branch: pushed (attempt $attempt)"
    record "store push $store_branch" $((pushed ? 3 : 0))
  fi
fi

# --- fuzz: the harness's readers under libFuzzer (docs/fuzzing.md), longer than CI's minute -----
# After the night, so it never delays a measurement; not with a package (no clang build there).
# A finding is a bug in a tool (4): its input is in build/fuzz/findings/, the log in $out.
if ((fuzz_seconds > 0 && !skip_build)); then
  "$root/ci/fuzz.sh" "$fuzz_seconds" >"$out/fuzz.log" 2>&1
  rc=$?
  grep '^fuzz:' "$out/fuzz.log" | while read -r line; do note "$line"; done
  case $rc in
    0) record fuzz 0 ;;
    1) record fuzz 4 ;;
    *) record fuzz 3 ;;
  esac
fi

# --- properties: the property tests (docs/fuzzing.md), on more generated inputs than CI's --------
# CTest label `property` of this night's build, PINBENCH_PROPERTY_SCALE times the inputs of a CI
# run (same seeds: a failure reproduces with the scale it was found at). A failure is a bug in a
# tool (4); the log is in $out/properties.log.
if ((property_scale > 0 && !skip_build)); then
  PINBENCH_PROPERTY_SCALE=$property_scale ctest --test-dir "$build_dir" -L property --timeout 3600 \
    --output-on-failure >"$out/properties.log" 2>&1
  rc=$?
  if grep -q '^100% tests passed' "$out/properties.log"; then
    note "properties: passed at scale $property_scale ($(grep -o 'Total Test time (real) = *[0-9.]* sec' \
      "$out/properties.log" | grep -o '[0-9.]* sec'))"
    record properties 0
  elif grep -q 'tests failed out of' "$out/properties.log"; then
    record properties 4
  else
    record properties 3  # no test ran (rc $rc): the build has none
  fi
fi

# --- pinreport-properties: its invariants under Hypothesis (docs/fuzzing.md), more examples -----
# than CI's (PINREPORT_FUZZ=nightly, reports/tests/conftest.py); as the fuzz step, after the night.
# A counterexample is a bug in pinreport (4); the log, with the failing example, in $out.
if ((fuzz_seconds > 0 && !skip_build)) && [[ -x $root/.venv/bin/python ]]; then
  (cd "$root" && PINREPORT_FUZZ=nightly PINBENCH_EXE="$pinbench" .venv/bin/python -m pytest -q -p no:cacheprovider \
    reports/tests/test_fuzz_*.py) >"$out/pinreport-properties.log" 2>&1
  rc=$?
  note "pinreport properties: $(tail -n 1 "$out/pinreport-properties.log")"
  case $rc in
    0) record pinreport-properties 0 ;;
    1) record pinreport-properties 4 ;;
    *) record pinreport-properties 3 ;;
  esac
fi

finish
