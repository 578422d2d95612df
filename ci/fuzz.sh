#!/usr/bin/env bash
# The libFuzzer targets (harness/fuzz; docs/fuzzing.md): builds them (preset fuzz: clang with
# -fsanitize=fuzzer,address) and runs each for an equal share of SECONDS, from the committed seed
# corpus (harness/fuzz/corpus/<target>) and what earlier runs found (build/fuzz/corpus/<target>,
# kept between runs, never committed). Prints one line per target: executions, corpus size and
# time. A crash, a sanitizer report, a leak, an input over its time or memory limit, an
# exception other than InputError, or a broken invariant (output_target: an accepted output
# that, once written, changed an input, a store file or a directory or FIFO) fails it and leaves the input in build/fuzz/findings/<target>/:
# it becomes a regression test (harness/tests/fixtures/fuzz-regressions/<target>/, CTest
# FuzzRegressions.*; docs/fuzzing.md says how).
#
#   ci/fuzz.sh [--skip-build] SECONDS     ci/test.sh: 60; ci/nightly.sh: --fuzz-seconds (600)
#
# Exit code: 0 no finding; 1 a finding; 2 usage; 3 the build failed or clang is missing.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 3

skip_build=0
if [[ ${1:-} == --skip-build ]]; then
  skip_build=1
  shift
fi
seconds=${1:-}
[[ $seconds =~ ^[1-9][0-9]*$ ]] || { echo "usage: ci/fuzz.sh [--skip-build] SECONDS" >&2; exit 2; }
targets=(scenario results trace output_target)
build=build/fuzz

if ((!skip_build)); then
  command -v clang++ >/dev/null || { echo "fuzz: clang++ not found (libFuzzer needs clang)" >&2; exit 3; }
  # shellcheck source=ci/cache_dirs.sh
  . ci/cache_dirs.sh
  pinbench_ccache_env "$root"
  if ! { cmake --preset fuzz >"$build.configure.log" 2>&1 &&
    cmake --build --preset fuzz -j"${PINBENCH_JOBS:-2}" --target "${targets[@]/#/pinbench_fuzz_}" \
      >"$build.build.log" 2>&1; }; then
    tail -n 30 "$build.configure.log" "$build.build.log" 2>/dev/null
    echo "fuzz: the build failed ($build.configure.log, $build.build.log)" >&2
    exit 3
  fi
fi

share=$((seconds / ${#targets[@]}))
((share > 0)) || share=1
status=0
for target in "${targets[@]}"; do
  exe=$build/harness/fuzz/pinbench_fuzz_$target
  work=$build/corpus/$target
  findings=$build/findings/$target
  log=$build/$target.log
  mkdir -p "$work" "$findings"
  start=$SECONDS
  # -timeout: one input may take 10 s; -rss_limit_mb: 2 GiB (an input that needs more is a
  # finding: the readers bound what they read); -max_len: 64 KiB, past every seed.
  "$exe" -max_total_time="$share" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -print_final_stats=1 -artifact_prefix="$findings/" "$work" "harness/fuzz/corpus/$target" >"$log" 2>&1
  rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
  size=$(find "$work" "harness/fuzz/corpus/$target" -type f | wc -l)
  printf 'fuzz: %-13s %10s executions  corpus %5d inputs  %4d s' "$target" "${runs:-?}" "$size" $((SECONDS - start))
  if ((rc != 0)); then
    status=1
    printf '  FINDING (exit %d): %s\n' "$rc" "$findings/$(ls -t "$findings" | head -n 1)"
    grep -E '^(==[0-9]+==ERROR|SUMMARY|terminate called|  what\(\))' "$log" | head -n 5 | sed 's/^/      /'
  else
    printf '  no finding\n'
  fi
done
exit $status
