#!/usr/bin/env bash
# Runs chosen CPU tests N times in a row (GoogleTest's --gtest_repeat), on Linux and under Wine,
# so that a test which fails now and then is seen before it lands, not by the next person whose
# unchanged tree fails (as WorkDirs.ASweepBesideNewClaimsRemovesNone under Wine).
# The default tests are those that race threads or processes on files: the work directories and
# their claims, the store lock, atomic replacement.
#
# Usage: ci/repeat_tests.sh [-n N] [--linux-only | --wine-only] [GTEST_FILTER]
#   -n N          repetitions (default 20)
#   GTEST_FILTER  which tests (default below)
# Needs the builds already there: build/ci-nogpu's pinbench_cpu_tests (cmake --build --preset
# ci-nogpu --target pinbench_cpu_tests) and build/mingw (ci/check_windows.sh --build-only).
# Under Wine it is ci/check_windows.sh --test-only with the filter and the repeat (its shards, its
# fresh copy of the prefix; it leaves its logs in build/mingw/wine-tests-*.log as it does).
# Prints one line per platform, "repeat_tests: PLATFORM: N of N runs passed (...)", and each
# test that failed with how often; exits 1 when a repetition failed, 2 or 3 as
# ci/check_windows.sh (a tool or the build missing).
set -euo pipefail
cd "$(dirname "$0")/.."

repeats=20
linux=1
wine=1
filter='WorkDirs.*:DirectoryClaim.*:StoreLock*.*:AtomicFile*.*'
while (($#)); do
  case "$1" in
    -n) repeats="$2"; shift ;;
    --linux-only) wine=0 ;;
    --wine-only) linux=0 ;;
    -*) echo "repeat_tests: unknown option $1" >&2; exit 2 ;;
    *) filter="$1" ;;
  esac
  shift
done
[[ $repeats =~ ^[1-9][0-9]*$ ]] || { echo "repeat_tests: -n wants a positive count, not '$repeats'" >&2; exit 2; }

# The runs in GoogleTest's output LOG... (--gtest_brief=1: per repetition, "[==========] N tests
# from M test suites ran.", "[  PASSED  ] P tests." and "[  SKIPPED ] S tests." when some
# skipped; a failed test's own line "[  FAILED  ] Suite.Name (T ms)"): a run failed when
# P + S < N. Prints the runs passed and each failed test with how often; false when a run failed
# or none ran (a filter that selects nothing checks nothing).
tally() {  # PLATFORM SECONDS LOG...
  local platform="$1" seconds="$2"
  shift 2
  cat "$@" | tr -d '\r' | awk -v platform="$platform" -v repeats="$repeats" -v processes="$#" -v seconds="$seconds" '
    function close_run() { if (n > 0) { runs++; if (p + s < n) failed++ } n = 0 }
    /^\[==========\] [0-9]+ tests? from .* ran\./ { close_run(); n = $2; p = 0; s = 0 }
    /^\[  PASSED  \] [0-9]+ tests?\./ { p = $4 }
    /^\[  SKIPPED \] [0-9]+ tests?\./ { s = $4 }
    /^\[  FAILED  \] [A-Za-z0-9_]+\.[A-Za-z0-9_\/]+ \([0-9]+ ms\)$/ { times[$4]++ }
    END {
      close_run()
      # Each process (a Wine shard) repeats its share of the tests: a run is one repetition in one.
      printf "repeat_tests: %s: %d of %d runs passed (%d repetitions in each of %d process(es), %d s)\n",
             platform, runs - failed, runs, repeats, processes, seconds
      for (name in times) printf "repeat_tests: %s: %s failed %d time(s)\n", platform, name, times[name]
      exit (runs == 0 || failed > 0)
    }'
}

status=0
if ((linux)); then
  exe=build/ci-nogpu/harness/tests/pinbench_cpu_tests
  [[ -x $exe ]] || { echo "repeat_tests: no $exe (cmake --build --preset ci-nogpu --target pinbench_cpu_tests)" >&2; exit 3; }
  log="$(mktemp)"
  start=$SECONDS
  linux_status=0
  "$exe" --gtest_filter="$filter" --gtest_repeat="$repeats" --gtest_brief=1 >"$log" 2>&1 || linux_status=$?
  tally linux $((SECONDS - start)) "$log" || status=1
  ((linux_status == 0)) || { echo "repeat_tests: linux: pinbench_cpu_tests exited with $linux_status"; status=1; }
  rm -f "$log"
fi
if ((wine)); then
  build="${PINBENCH_MINGW_BUILD:-build/mingw}"
  start=$SECONDS
  wine_status=0
  ci/check_windows.sh --test-only -- --gtest_filter="$filter" --gtest_repeat="$repeats" >/dev/null 2>&1 || wine_status=$?
  if ((wine_status == 2 || wine_status == 3)); then
    echo "repeat_tests: ci/check_windows.sh exited $wine_status (run it alone to see why)" >&2
    exit "$wine_status"
  fi
  tally wine $((SECONDS - start)) "$build"/wine-tests-*.log || status=1
  ((wine_status == 0)) || { echo "repeat_tests: wine: ci/check_windows.sh exited with $wine_status"; status=1; }
fi
exit "$status"
