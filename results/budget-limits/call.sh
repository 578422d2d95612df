#!/usr/bin/env bash
# Issue 55 on one GPU machine (as root; Ubuntu 24.04, cgroup v2, g++ 13, CMake 4, ninja, no
# network): `pinbench budget` where users run it, against docs/budget.md's promises.
#
#   OUT=... bash results/budget-limits/call.sh          # the device tool sets OUT
#   PINBENCH_EXE=path bash results/budget-limits/call.sh  # a pinbench built already: no build
#   CALL_SELF_TEST=1 bash results/budget-limits/call.sh   # no GPU, no root: the cgroup steps
#                                                         # against a fake tree (see the end)
#
# 1. builds pinbench (as results/answer-in-a-minute/fourth/call.sh does);
# 2. makes a cgroup v2 group of 6 GiB (memory.max, no swap) by writing the cgroup files, starts a
#    neighbour in it that holds 1 GiB of touched memory, and runs inside it, each with the group's
#    memory.events before and after and whether the neighbour is still alive:
#      `pinbench budget --held-only` as in a container (its own cgroup namespace and cgroup2
#      mount, as Docker makes them), then `pinbench budget` (both phases) in the plain group;
# 3. `pinbench budget --held-only` under `prlimit --as` of 12 GiB (CUDA cannot start there: the
#    error must name the limit, never "no GPU"), then under the address space of a calibration
#    child plus 8 GiB (exit 0, the limit named);
# 4. `pinbench budget` with its defaults on the plain machine, against results/h100-budget.
# Every expectation is a PASS or FAIL line in summary.txt; the call exits 1 when one failed, 2
# when the machine cannot run it (not root, no cgroup v2, no memory controller, a build that
# failed), never measuring on silently. OUT gets summary.txt and budget-limits.tar.gz (every
# screen, document, memory.events, figure and log, and commands.txt). Under 9 minutes.
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
group_name="pinbench-budget-55"
limit_bytes=$((6 << 30))
neighbour_bytes=$((1 << 30))
fails=0

# --- the cgroup steps, also run against a fake tree by the self-test -----------------------
# CGROUP_FS: the cgroup2 mount (a fake folder in the self-test).
cgroup_fs="${CGROUP_FS:-/sys/fs/cgroup}"
group="$cgroup_fs/$group_name"

die() {  # CODE MESSAGE: the machine cannot run this; said loudly, nothing measured on
  echo "call.sh: $2" >&2
  if [[ -n ${summary:-} ]]; then
    echo "call.sh: $2" >>"$summary"
    pack
  fi
  exit "$1"
}
pack() { :; }  # the GPU run's files into OUT (below)

write() {  # FILE VALUE: a cgroup file, checked
  printf '%s\n' "$2" >"$1" 2>/dev/null || die 2 "cannot write '$2' to $1"
}

# The memory controller for children of the mount's root, and the group: 6 GiB, no swap (a
# swapped neighbour would leave the group's use below what it holds), memory.high unset.
make_group() {
  grep -qw memory "$cgroup_fs/cgroup.controllers" || die 2 "no memory controller in $cgroup_fs/cgroup.controllers"
  if ! grep -qw memory "$cgroup_fs/cgroup.subtree_control"; then
    if ! printf '+memory\n' >"$cgroup_fs/cgroup.subtree_control" 2>/dev/null; then
      # Inside a container the mount's root holds processes, which cgroup v2 forbids beside
      # enabled controllers: move them to a leaf of their own first (as docker-in-docker does).
      mkdir -p "$cgroup_fs/init" || die 2 "cannot make $cgroup_fs/init"
      while read -r pid; do printf '%s\n' "$pid" >"$cgroup_fs/init/cgroup.procs" 2>/dev/null || true; done \
        <"$cgroup_fs/cgroup.procs"
      write "$cgroup_fs/cgroup.subtree_control" "+memory"
    fi
  fi
  [[ -d $group ]] || mkdir "$group" || die 2 "cannot make $group"
  write "$group/memory.max" "$limit_bytes"
  [[ -f $group/memory.high ]] && write "$group/memory.high" max
  if [[ -f $group/memory.swap.max ]]; then write "$group/memory.swap.max" 0; fi
  [[ "$(cat "$group/memory.max")" == "$limit_bytes" ]] || die 2 "$group/memory.max reads '$(cat "$group/memory.max")'"
}

events() { tr '\n' ' ' <"$group/memory.events"; }
oom_kill_of() { awk '$1 == "oom_kill" {print $2}' "$group/memory.events"; }

if [[ -n ${CALL_SELF_TEST:-} ]]; then
  # The cgroup steps against a fake cgroup2 mount: the files they write, checked.
  fake=$(mktemp -d)
  trap 'rm -rf "$fake"' EXIT
  printf 'cpu io memory pids\n' >"$fake/cgroup.controllers"
  : >"$fake/cgroup.subtree_control"
  : >"$fake/cgroup.procs"
  mkdir "$fake/$group_name"
  : >"$fake/$group_name/memory.high"
  : >"$fake/$group_name/memory.swap.max"
  printf 'low 0\nhigh 0\nmax 0\noom 1\noom_kill 2\n' >"$fake/$group_name/memory.events"
  CGROUP_FS=$fake CALL_SELF_TEST="" bash -c "source '${BASH_SOURCE[0]}' --functions-only && make_group && echo \$(oom_kill_of)" \
    >"$fake/said" 2>&1 || { cat "$fake/said"; echo "self-test: make_group failed"; exit 1; }
  ok=1
  [[ "$(cat "$fake/cgroup.subtree_control")" == "+memory" ]] || { echo "self-test: subtree_control: $(cat "$fake/cgroup.subtree_control")"; ok=0; }
  [[ "$(cat "$fake/$group_name/memory.max")" == "$limit_bytes" ]] || { echo "self-test: memory.max"; ok=0; }
  [[ "$(cat "$fake/$group_name/memory.high")" == "max" ]] || { echo "self-test: memory.high"; ok=0; }
  [[ "$(cat "$fake/$group_name/memory.swap.max")" == "0" ]] || { echo "self-test: memory.swap.max"; ok=0; }
  [[ "$(cat "$fake/said")" == "2" ]] || { echo "self-test: oom_kill read '$(cat "$fake/said")'"; ok=0; }
  # No memory controller: it must refuse, exit 2, naming why.
  printf 'cpu io\n' >"$fake/cgroup.controllers"
  if CGROUP_FS=$fake CALL_SELF_TEST="" bash -c "source '${BASH_SOURCE[0]}' --functions-only && make_group" >"$fake/said" 2>&1; then
    echo "self-test: a mount without the memory controller was accepted"; ok=0
  fi
  grep -q "no memory controller" "$fake/said" || { echo "self-test: no reason given: $(cat "$fake/said")"; ok=0; }
  ((ok)) && echo "self-test: the cgroup steps write what they should and refuse a mount without memory"
  ((ok)) || exit 1
  exit 0
fi
[[ ${1:-} == --functions-only ]] && return 0

# --- the GPU machine ---------------------------------------------------------------------
out="${OUT:?OUT: where the files go}"
work=/tmp/budget-limits
rm -rf "$work"
mkdir -p "$work" "$out"
summary=$out/summary.txt
: >"$summary"
commands=$work/commands.txt
say() { echo "$*" | tee -a "$summary"; }
check() {  # NAME CONDITION-STATUS DETAIL: a PASS or FAIL line
  if [[ $2 == 0 ]]; then say "PASS $1: $3"; else say "FAIL $1: $3"; fails=$((fails + 1)); fi
}
pack() {
  cleanup
  tar -czf "$out/budget-limits.tar.gz" -C "$(dirname "$work")" "$(basename "$work")"
}
finish() {
  say "call.sh: $SECONDS s, $fails failed check(s)"
  pack
  exit $((fails > 0 ? 1 : 0))
}
neighbour=""
cleanup() {
  [[ -n $neighbour ]] && kill "$neighbour" 2>/dev/null && wait "$neighbour" 2>/dev/null
  neighbour=""
  if [[ -d $group ]]; then
    while read -r pid; do printf '%s\n' "$pid" >"$cgroup_fs/cgroup.procs" 2>/dev/null || true; done <"$group/cgroup.procs"
    rmdir "$group" 2>/dev/null || true
  fi
}
trap cleanup EXIT

((EUID == 0)) || die 2 "run as root: it writes cgroup files"
[[ "$(stat -fc %T "$cgroup_fs" 2>/dev/null)" == cgroup2fs ]] || die 2 "$cgroup_fs is not cgroup v2 ($(stat -fc %T "$cgroup_fs" 2>&1))"
for tool in python3 prlimit nvidia-smi; do command -v "$tool" >/dev/null || die 2 "$tool not found"; done
{
  echo "call.sh: $(date -u +%FT%TZ) on $(hostname), $(uname -r)"
  nvidia-smi -L
  nvidia-smi --query-gpu=driver_version,memory.total --format=csv,noheader
  echo "cgroup: $(cat /proc/self/cgroup), controllers: $(cat "$cgroup_fs/cgroup.controllers")"
} | tee -a "$summary"

# 1. pinbench
pinbench="${PINBENCH_EXE:-}"
if [[ -z $pinbench ]]; then
  t=$SECONDS
  { cmake -S "$root" -B "$root/build/gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
      -DPINBENCH_BUILD_BENCHMARKS=OFF -DPINBENCH_BUILD_TESTS=OFF &&
      cmake --build "$root/build/gpu" --target pinbench -j "$(nproc)"; } >"$work/build.log" 2>&1 ||
    { tail -30 "$work/build.log"; die 2 "the build failed ($work/build.log)"; }
  pinbench=$root/build/gpu/harness/pinbench
  say "build: $((SECONDS - t)) s"
fi
[[ -x $pinbench ]] || die 2 "no pinbench at $pinbench"
"$pinbench" --version | tee -a "$summary"

figures() {  # LABEL: host and device figures
  { echo "== $1 $(date -u +%T)"; free -b; nvidia-smi --query-gpu=memory.used,memory.total --format=csv,noheader
    grep -E 'MemTotal|MemAvailable' /proc/meminfo; } >>"$work/figures.txt"
}

# One pinbench budget run: NAME TIMEOUT WRAPPER... -- ARGS...; its screen NAME.out, its document
# NAME.json, its exit code in $rc.
run_budget() {
  local name=$1 limit=$2
  shift 2
  local wrapper=()
  while [[ $1 != -- ]]; do wrapper+=("$1"); shift; done
  shift
  figures "before $name"
  echo "${wrapper[*]} $pinbench budget $* -o $work/$name.json" >>"$commands"
  rc=0
  timeout -s INT -k 20 "$limit" "${wrapper[@]}" "$pinbench" budget "$@" -o "$work/$name.json" >"$work/$name.out" 2>&1 || rc=$?
  figures "after $name"
  say "$name: exit $rc; $(grep -a '^safe budget' "$work/$name.out" | head -1)"
}
doc() {  # NAME PYTHON-EXPRESSION over the document d: prints its value
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$work/$1.json" 2>&1
}

# 2. inside a 6 GiB group beside a neighbour of 1 GiB
make_group
say "group $group: memory.max $(cat "$group/memory.max"), swap.max $(cat "$group/memory.swap.max" 2>/dev/null || echo none)"
sh -c 'echo $$ >"$1/cgroup.procs" && exec python3 -c "
import sys, time
b = bytearray(b\"\\x01\") * $2   # written, so every page is touched and charged
sys.stdout.write(\"holding\\n\"); sys.stdout.flush()
time.sleep(3600)
"' sh "$group" "$neighbour_bytes" >"$work/neighbour.log" 2>&1 &
neighbour=$!
for _ in $(seq 100); do grep -q holding "$work/neighbour.log" 2>/dev/null && break; sleep 0.1; done
grep -q holding "$work/neighbour.log" || die 2 "the neighbour did not start: $(cat "$work/neighbour.log")"
current=$(cat "$group/memory.current")
((current >= neighbour_bytes)) || die 2 "the group uses $current B with the neighbour in it, not its 1 GiB"
grep -qx "0::/$group_name" "/proc/$neighbour/cgroup" || die 2 "the neighbour is not in the group: $(cat "/proc/$neighbour/cgroup")"
say "neighbour pid $neighbour in the group; memory.current $current B"

# Two views of the same group. A container's, as Docker makes it: the group, then a cgroup
# namespace of its own with cgroup2 mounted afresh, so the group is "/" and /sys/fs/cgroup its
# folder ("the container's limit"). A plain group's, as Slurm or systemd make it (the group by
# its path: "the cgroup's limit").
# shellcheck disable=SC2016  # expanded by the inner shells: their own pid into the group, then pinbench
in_container=(sh -c 'echo $$ >"$0/cgroup.procs" && exec unshare --cgroup --mount --propagation private sh -c "umount -l /sys/fs/cgroup && mount -t cgroup2 cgroup2 /sys/fs/cgroup && exec \"\$@\"" sh "$@"' "$group")
# shellcheck disable=SC2016
in_group=(sh -c 'echo $$ >"$0/cgroup.procs" && exec "$@"' "$group")
for name in group-held-only group-full; do
  args=(--held-only)
  wrapper=("${in_container[@]}")
  named="the container's limit, 6 GiB"
  if [[ $name == group-full ]]; then
    args=()
    wrapper=("${in_group[@]}")
    named="the cgroup's limit, 6 GiB"
  fi
  before=$(events)
  echo "$name memory.events before: $before" >>"$work/memory.events.txt"
  run_budget "$name" 150 "${wrapper[@]}" -- "${args[@]}"
  after=$(events)
  echo "$name memory.events after: $after" >>"$work/memory.events.txt"
  echo "$name memory.peak: $(cat "$group/memory.peak" 2>/dev/null || echo none)" >>"$work/memory.events.txt"
  say "$name: memory.events before: $before; after: $after"
  check "$name exit" "$([[ $rc == 0 ]]; echo $?)" "exit $rc"
  check "$name no oom_kill" "$([[ "$(oom_kill_of)" == 0 ]]; echo $?)" "memory.events oom_kill $(oom_kill_of)"
  check "$name neighbour alive" "$(kill -0 "$neighbour" 2>/dev/null; echo $?)" "pid $neighbour"
  check "$name limit named" "$(grep -q "bounded by $named" "$work/$name.out"; echo $?)" \
    "$(grep -a 'bounded by' "$work/$name.out" | head -1)"
  check "$name stopped by the group" "$(doc "$name" "all(f['held_at_once']['stopped_by'] == 'memory_limit' for f in d['families'])" | grep -qx True; echo $?)" \
    "$(doc "$name" "[(f['family'], f['held_at_once']['bytes'], f['held_at_once']['stopped_by']) for f in d['families']]")"
done
cleanup

# 3. under an address-space limit: 12 GiB (CUDA cannot start there), then a calibration child's
# address space plus 8 GiB
run_budget as-12GiB 60 prlimit --as=$((12 << 30)) -- --held-only --time-limit 20
check "as-12GiB names the limit, never no GPU" \
  "$( { [[ $rc == 0 ]] || grep -q "CUDA could not start under the address-space limit" "$work/as-12GiB.out"; } &&
      ! grep -q "this machine has 0" "$work/as-12GiB.out"; echo $?)" \
  "exit $rc; $(grep -a 'could not start\|bounded by' "$work/as-12GiB.out" | head -1 | cut -c1-240)"
# The calibration: the largest address space of a budget child with its context and 512 MiB pinned.
"$pinbench" budget --cap 512MiB --chunk 256MiB --time-limit 10 --held-only -o "$work/calibration.json" \
  >"$work/calibration.out" 2>&1 &
calibration=$!
vm=0
while kill -0 "$calibration" 2>/dev/null; do
  for p in $(pgrep -f "pinbench __child" || true); do
    v=$(awk '/^VmSize:/ {print $2 * 1024}' "/proc/$p/status" 2>/dev/null || echo 0)
    ((v > vm)) && vm=$v
  done
  sleep 0.1
done
wait "$calibration" || true
((vm > 0)) || die 2 "the calibration child's address space was not seen ($work/calibration.out)"
as_limit=$((vm + (8 << 30)))
say "calibration: the largest child address space $vm B; the limit $as_limit B"
run_budget as-calibrated 120 prlimit --as=$as_limit -- --held-only
check "as-calibrated exit" "$([[ $rc == 0 ]]; echo $?)" "exit $rc"
check "as-calibrated limit named" \
  "$(doc as-calibrated "all(f['held_at_once']['stopped_by'] == 'address_space' and f['bounded_by']['kind'] == 'rlimit_as' for f in d['families'])" | grep -qx True; echo $?)" \
  "$(doc as-calibrated "[(f['family'], f['held_at_once']['bytes'], f['held_at_once']['words'][:120]) for f in d['families']]")"

# 4. the default run on the plain machine, against results/h100-budget
run_budget default 200 env --
check "default exit" "$([[ $rc == 0 ]]; echo $?)" "exit $rc"
compare=$(python3 - "$root/results/h100-budget/budget-default.json" "$work/default.json" <<'EOF'
import json, sys
old, new = (json.load(open(p)) for p in sys.argv[1:3])
def fam(d):
    return {f["family"]: (f.get("safe_budget"), f["held_at_once"]["stopped_by"], f["held_at_once"]["bytes"]) for f in d["families"]}
o, n = fam(old), fam(new)
same = all(n.get(k, (None,))[0] == v[0] and n[k][1] == v[1] for k, v in o.items())
print(("same" if same else "DIFFERENT") + f": results/h100-budget {o}; now {n}; options {new['options']}")
EOF
)
say "default against results/h100-budget: $compare"
check "default unchanged against results/h100-budget" "$([[ $compare == same* ]]; echo $?)" "safe budgets and what stopped them"
finish
