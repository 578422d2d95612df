#!/usr/bin/env bash
# Issue 46's comparison on one GPU machine, today's tree (d55146e, old-tree/: make_old_tree.sh)
# against the new one, in calls back to back on the same warm machine (README.md here has the
# exact calls; a call may take 10 minutes, and the two nightlies alone take about 13):
#   bash results/answer-in-a-minute/third/call.sh first   # both builds; the new ci/main.sh first
#                                                         # (the machine's first touch), then today's;
#                                                         # then, new tree, some nightly runs with the
#                                                         # holder and with --fresh-driver
#   bash results/answer-in-a-minute/third/call.sh second  # the new ci/nightly.sh; a run beside a
#                                                         # neighbour (it must end disturbed)
#   bash results/answer-in-a-minute/third/call.sh third   # today's ci/nightly.sh; the new tree's
#                                                         # pinbench budget (as the nightly runs it)
# pinreport runs from each tree's reports/ with the carried wheels (.whl/). Every stage has a
# deadline, so the call always ends with its files: wall.txt (every timing line) and one tar.gz
# per job (its results, budget, summary, logs).
set -uo pipefail
out=${OUT:?OUT}
which=${1:?first, second or third}
root=$PWD
budget_s=${BUDGET_S:-570}  # the whole call
work=/tmp/minute
mkdir -p "$work"
wall=$out/wall.txt
: >"$wall"
say() { echo "$*" | tee -a "$wall"; }
left() { echo $((budget_s - SECONDS)); }
limit() { local l=$(($(left) - $1)); echo $((l < 10 ? 10 : l)); }  # what is left less a margin

python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
nvidia-smi -L | tee -a "$wall"
need_old=1
[[ $which == second ]] && need_old=0
if ((need_old)); then
  bash results/answer-in-a-minute/third/make_old_tree.sh || { say "old-tree: not made"; exit 2; }
fi
for tree in new old; do
  dir=$root
  [[ $tree == old ]] && dir=$root/old-tree
  printf '#!/bin/sh\nPYTHONPATH=/tmp/site:%s/reports exec python3 -m pinreport "$@"\n' "$dir" >"$work/pinreport-$tree"
  chmod +x "$work/pinreport-$tree"
done

# Both builds at once (ninja does nothing where this warm machine built them already).
t=$SECONDS
build() {  # TREE-DIR BUILD-DIR TARGETS...
  local src=$1 dir=$2
  shift 2
  cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
    -DPINBENCH_BUILD_BENCHMARKS=OFF -DPINBENCH_BUILD_TESTS=OFF && cmake --build "$dir" --target "$@" -j 8
}
pids=()
if ((need_old)); then
  build "$root/old-tree" "$root/build/old" pinbench >"$work/build-old.log" 2>&1 &
  pids+=($!)
fi
build "$root" "$root/build/gpu" pinbench pinbench_neighbour >"$work/build-new.log" 2>&1 &
pids+=($!)
for p in "${pids[@]}"; do wait "$p" || { say "a build failed"; tail -20 "$work"/build-*.log; exit 3; }; done
say "builds: $((SECONDS - t)) s"
exe_new=$root/build/gpu/harness/pinbench
exe_old=$root/build/old/harness/pinbench

main_of() {  # TREE MARGIN: ci/main.sh of that tree (pinbench built before, no apt), timed
  local tree=$1 dir=$root rc=0 t0=$SECONDS exe=$exe_new
  [[ $tree == old ]] && dir=$root/old-tree && exe=$exe_old
  rm -rf "$work/main-$tree"
  (cd "$dir" && SKIP_SETUP=1 PINBENCH_EXE=$exe PINREPORT=$work/pinreport-$tree OUT=$work/main-$tree \
    timeout -s INT -k 15 "$(limit "$2")" bash ci/main.sh) >"$work/main-$tree.log" 2>&1 || rc=$?
  say "$tree: ci/main.sh: exit $rc after $((SECONDS - t0)) s (pinbench built before)"
  grep -a '^ci/main.sh: \|^repeats: planned\|^Pin budget' "$work/main-$tree.log" | sed "s/^/$tree: /" | cut -c1-300 | tee -a "$wall"
  say "$tree: its budget: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["elapsed_s"])' "$work/main-$tree/budget.json" 2>&1) s (budget.json elapsed_s)"
  cp "$work/main-$tree.log" "$work/main-$tree/" 2>/dev/null
  tar -czf "$out/main-$tree.tar.gz" -C "$work" "main-$tree"
}
nightly_of() {  # TREE MARGIN [OPTION]: ci/nightly.sh of that tree (no build, no benchmarks, no fuzzing), timed
  local tree=$1 dir=$root rc=0 t0=$SECONDS exe=$exe_new extra=("${@:3}")
  [[ $tree == old ]] && dir=$root/old-tree && exe=$exe_old
  rm -rf "$work/nightly-$tree"
  mkdir -p "$work/nightly-$tree"
  (cd "$dir" && timeout -s INT -k 15 "$(limit "$2")" bash ci/nightly.sh --store "$work/nightly-$tree/store" \
    --out "$work/nightly-$tree/out" --skip-build --skip-bench --fuzz-seconds 0 --pinbench "$exe" \
    --pinreport "$work/pinreport-$tree" "${extra[@]}") >"$work/nightly-$tree/nightly.log" 2>&1 || rc=$?
  say "$tree: ci/nightly.sh (--skip-bench ${extra[*]}): exit $rc after $((SECONDS - t0)) s"
  grep -a '^ci/nightly.sh: \|repeats: planned' "$work/nightly-$tree/nightly.log" | sed "s/^/$tree: /" | tee -a "$wall"
  tar -czf "$out/nightly-$tree.tar.gz" -C "$work" "nightly-$tree"
}

check_holder() {  # the holder against --fresh-driver on runs of both sorts, and the max_pinnable runs
  sel=(--only 'nightly-overhead/cudaMallocHost/*' --only 'nightly-overhead/cudaHostRegister/*'
    --only 'nightly-workers/*' --only 'nightly-shared/*' --only 'nightly-max-pinnable/*'
    --only 'nightly-register-window/*')
  for mode in held fresh; do
    opt=()
    [[ $mode == fresh ]] && opt=(--fresh-driver)
    t=$SECONDS
    rc=0
    timeout -s INT -k 10 "$(limit 60)" "$exe_new" run scenarios/nightly.yaml "${sel[@]}" --all-repeats "${opt[@]}" \
      -o "$out/check-$mode.json" --no-summary >"$work/check-$mode.log" 2>&1 || rc=$?
    say "check $mode: pinbench run exit $rc after $((SECONDS - t)) s"
  done
  python3 results/answer-in-a-minute/final/medians.py "$out/check-fresh.json" "$out/check-held.json" | tee -a "$wall"
}

case $which in
  first)
    main_of new 200
    main_of old 10
    python3 results/answer-in-a-minute/final/medians.py "$work/main-old/quick.json" "$work/main-new/quick.json" >"$out/medians-main.txt" 2>&1
    tail -1 "$out/medians-main.txt" | tee -a "$wall"
    check_holder
    ;;
  second)
    nightly_of new 110
    # Beside a neighbour that allocates and frees 20 GiB in bursts: with no retries the run must
    # end disturbed, and never stop at 3 repeats beside it.
    t=$SECONDS
    "$root/build/gpu/tools/pinbench_neighbour" device-burst --bytes 20 --seconds 150 --seed 1 >"$work/neighbour.log" 2>&1 &
    neighbour=$!
    sleep 3
    rc=0
    timeout -s INT -k 10 "$(limit 5)" "$exe_new" run scenarios/quick.yaml --only 'quick-overhead/cudaMallocHost/64MiB/*' \
      --disturbance-retries 0 -o "$out/neighbour.json" --no-summary >"$work/neighbour-run.log" 2>&1 || rc=$?
    kill "$neighbour" 2>/dev/null
    wait "$neighbour" 2>/dev/null
    say "beside device-burst: pinbench run exit $rc after $((SECONDS - t)) s;" \
      "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("complete", d["complete"], "; ".join(r["id"]+": "+r["status"]+", stopping "+json.dumps(r.get("stopping"))+", attempts "+",".join(a["status"] for a in r["repeats"]) for r in d["runs"]))' "$out/neighbour.json" 2>&1)"
    ;;
  third)
    nightly_of old 60
    # The new tree's pinbench budget as ci/nightly.sh runs it, on this machine after today's
    # nightly: the second call's was cut by its deadline.
    t=$SECONDS
    rc=0
    timeout -s INT -k 10 "$(limit 5)" "$exe_new" budget -o "$out/budget-new.json" >"$work/budget-new.out" 2>&1 || rc=$?
    say "new: pinbench budget (as ci/nightly.sh runs it): exit $rc after $((SECONDS - t)) s"
    ;;
esac
tar -czf "$out/logs.tar.gz" -C "$work" $(cd "$work" && ls -d *.log 2>/dev/null)
say "whole call: $SECONDS s"
