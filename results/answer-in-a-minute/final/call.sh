#!/usr/bin/env bash
# The issue's comparison on one GPU machine, in two device calls back to back on the same warm
# machine (README.md here has the exact calls; one call cannot hold both nightlies):
#   bash results/answer-in-a-minute/final/call.sh new   # builds both trees; the new ci/main.sh and
#                                                       # ci/nightly.sh, each timed
#   bash results/answer-in-a-minute/final/call.sh old   # a run beside a neighbour (it must end
#                                                       # disturbed, 50 s at most), today's
#                                                       # (old-tree/) ci/main.sh, then its
#                                                       # ci/nightly.sh --skip-budget: its budget is
#                                                       # the one its ci/main.sh just measured
#                                                       # (budget.json's elapsed_s), as both calls
#                                                       # together may not take more than 30 minutes
# old-tree/ is `git archive 6b2ce51` without results/ but for the two files its main.sh reads
# (README.md). pinreport runs from each tree's reports/ with the carried wheels (.whl/) for the
# machine's python. Every stage has a deadline, so the call always ends with its files: wall.txt
# (every timing line) and one tar.gz per job (its results, budget, summary, logs).
set -uo pipefail
out=${OUT:?OUT}
which=${1:?new or old}
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
for tree in new old; do
  dir=$root
  [[ $tree == old ]] && dir=$root/old-tree
  printf '#!/bin/sh\nPYTHONPATH=/tmp/site:%s/reports exec python3 -m pinreport "$@"\n' "$dir" >"$work/pinreport-$tree"
  chmod +x "$work/pinreport-$tree"
done
[[ -d old-tree/harness ]] || { say "old-tree/ is missing: see README.md here"; exit 2; }
[[ -d old-tree/.deps ]] || cp -R .deps old-tree/.deps

# Both builds at once (ninja does nothing where a warm machine built them already).
t=$SECONDS
build() {  # TREE-DIR BUILD-DIR TARGETS...
  local src=$1 dir=$2
  shift 2
  cmake -S "$src" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
    -DPINBENCH_BUILD_BENCHMARKS=OFF -DPINBENCH_BUILD_TESTS=OFF && cmake --build "$dir" --target "$@" -j 8
}
build "$root/old-tree" "$root/build/old" pinbench >"$work/build-old.log" 2>&1 &
old_build=$!
build "$root" "$root/build/gpu" pinbench pinbench_neighbour >"$work/build-new.log" 2>&1 &
new_build=$!
wait $old_build || { say "old build failed"; tail -20 "$work/build-old.log"; exit 3; }
wait $new_build || { say "new build failed"; tail -20 "$work/build-new.log"; exit 3; }
say "builds (both at once): $((SECONDS - t)) s"
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

if [[ $which == new ]]; then
  main_of new 400
  nightly_of new 10
else
  # Beside a neighbour that allocates and frees 20 GiB in bursts: with no retries the run must
  # end disturbed, and never stop at 3 repeats beside it.
  t=$SECONDS
  "$root/build/gpu/tools/pinbench_neighbour" device-burst --bytes 20 --seconds 120 --seed 1 >"$work/neighbour.log" 2>&1 &
  neighbour=$!
  sleep 3
  rc=0
  timeout -s INT -k 10 50 "$exe_new" run scenarios/quick.yaml --only 'quick-overhead/cudaMallocHost/64MiB/*' \
    --disturbance-retries 0 -o "$out/neighbour.json" --no-summary >"$work/neighbour-run.log" 2>&1 || rc=$?
  kill "$neighbour" 2>/dev/null
  wait "$neighbour" 2>/dev/null
  say "beside device-burst: pinbench run exit $rc after $((SECONDS - t)) s;" \
    "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("complete", d["complete"], "; ".join(r["id"]+": "+r["status"]+", stopping "+json.dumps(r.get("stopping"))+", attempts "+",".join(a["status"] for a in r["repeats"]) for r in d["runs"]))' "$out/neighbour.json" 2>&1)"
  main_of old 360
  nightly_of old 5 --skip-budget
  say "old: the budget of ci/main.sh: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["elapsed_s"])' "$work/main-old/budget.json" 2>&1) s (budget.json elapsed_s)"
fi
tar -czf "$out/logs.tar.gz" -C "$work" $(cd "$work" && ls -d *.log 2>/dev/null)
say "whole call: $SECONDS s"
