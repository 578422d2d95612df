#!/usr/bin/env bash
# Issue 46 on one GPU machine: today's tree (288029e, old-tree/: ../third/make_old_tree.sh with
# .old/ made against 288029e) against the new one, in calls back to back on the same warm machine
# (README.md here has the exact calls):
#   bash results/answer-in-a-minute/fourth/call.sh first   # both builds; ci/main.sh new, then today's;
#                                                          # the new ci/nightly.sh
#   bash results/answer-in-a-minute/fourth/call.sh second  # today's ci/nightly.sh; then the neighbour run
#                                                          # when 80 s are left
#   bash results/answer-in-a-minute/fourth/call.sh third   # a run beside a neighbour (must end disturbed)
# Every stage has a deadline, so the call always ends with its files: wall.txt (every timing line)
# and one tar.gz per job (results, budget, summary, logs). pinreport runs from each tree's
# reports/ with the carried wheels (.whl/).
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
limit() { local l=$((budget_s - SECONDS - $1)); echo $((l < 10 ? 10 : l)); }  # what is left less a margin

python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
nvidia-smi -L | tee -a "$wall"
[[ -d old-tree ]] || bash results/answer-in-a-minute/third/make_old_tree.sh || { say "old-tree: not made"; exit 2; }
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
build "$root/old-tree" "$root/build/old" pinbench >"$work/build-old.log" 2>&1 &
p1=$!
build "$root" "$root/build/gpu" pinbench pinbench_neighbour >"$work/build-new.log" 2>&1 &
p2=$!
for p in $p1 $p2; do wait "$p" || { say "a build failed"; tail -20 "$work"/build-*.log; exit 3; }; done
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
  cp "$work/main-$tree.log" "$work/main-$tree/" 2>/dev/null
  tar -czf "$out/main-$tree.tar.gz" -C "$work" "main-$tree"
}
nightly_of() {  # TREE MARGIN: ci/nightly.sh of that tree (no build, no benchmarks, no fuzzing), timed
  local tree=$1 dir=$root rc=0 t0=$SECONDS exe=$exe_new
  [[ $tree == old ]] && dir=$root/old-tree && exe=$exe_old
  rm -rf "$work/nightly-$tree"
  mkdir -p "$work/nightly-$tree"
  (cd "$dir" && timeout -s INT -k 15 "$(limit "$2")" bash ci/nightly.sh --store "$work/nightly-$tree/store" \
    --out "$work/nightly-$tree/out" --skip-build --skip-bench --fuzz-seconds 0 --pinbench "$exe" \
    --pinreport "$work/pinreport-$tree") >"$work/nightly-$tree/nightly.log" 2>&1 || rc=$?
  say "$tree: ci/nightly.sh (--skip-bench): exit $rc after $((SECONDS - t0)) s"
  grep -a '^ci/nightly.sh: \|repeats: planned' "$work/nightly-$tree/nightly.log" | sed "s/^/$tree: /" | tee -a "$wall"
  say "$tree: its budget: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["elapsed_s"])' \
    "$work/nightly-$tree/out/budget.json" 2>&1) s (budget.json elapsed_s)"
  tar -czf "$out/nightly-$tree.tar.gz" -C "$work" "nightly-$tree"
}

beside_neighbour() {
  # Beside a neighbour that allocates and frees 20 GiB in bursts: with no retries the run must
  # end disturbed, and never stop at 3 repeats beside it.
  local t=$SECONDS rc=0 neighbour
  "$root/build/gpu/tools/pinbench_neighbour" device-burst --bytes 20 --seconds 150 --seed 1 >"$work/neighbour.log" 2>&1 &
  neighbour=$!
  sleep 3
  timeout -s INT -k 10 "$(limit 5)" "$exe_new" run scenarios/quick.yaml --only 'quick-overhead/cudaMallocHost/64MiB/*' \
    --disturbance-retries 0 -o "$out/neighbour.json" --no-summary >"$work/neighbour-run.log" 2>&1 || rc=$?
  kill "$neighbour" 2>/dev/null
  wait "$neighbour" 2>/dev/null
  cp "$work/neighbour-run.log" "$out/"
  say "beside device-burst: pinbench run exit $rc after $((SECONDS - t)) s"
}

case $which in
  first)
    main_of new 400
    main_of old 330
    nightly_of new 5
    ;;
  second)  # today's nightly, then the neighbour run if 80 s are left
    nightly_of old 85
    ((budget_s - SECONDS >= 80)) && beside_neighbour
    ;;
  third)
    beside_neighbour
    ;;
esac
say "whole call: $SECONDS s"
