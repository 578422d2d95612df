#!/usr/bin/env bash
# Builds everything and runs every test that needs no GPU (GPU tests skip with the reason), a
# build without nvcc, then the CUDA 12.9 header check and the Windows tests (mingw-w64 build,
# run under Wine).
# This is the README's test command; .ci/run calls it.
#
# What it reuses between runs and between clones lives outside the clone, under the user's
# cache directory (ci/cache_dirs.sh; ci/README.md, "Caches"): ccache, clang-tidy's passed units,
# the mingw-built dependencies and the Wine prefix. Each is keyed by everything it was made
# from; deleting any of them is safe and gives the same verdict, only slower.
# It ends with one line per step: "ci: step NAME took N s" (and ccache's figures for the
# compiling steps).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
. ci/cache_dirs.sh
pinbench_ccache_env "$root"
export PINBENCH_JOBS="${PINBENCH_JOBS:-2}"

# --- The steps, timed -------------------------------------------------------------------------
started=$SECONDS
timings=()
current=""
step_start=0
step_note=""
step() {  # NAME COMMAND...: runs COMMAND as step NAME
  current="$1"
  shift
  step_start=$SECONDS
  step_note=""
  echo "ci: --- $current"
  "$@"
  timings+=("$(printf 'ci: step %-15s took %4d s%s' "$current" $((SECONDS - step_start)) "$step_note")")
  current=""
}
with_ccache() {  # COMMAND...: runs it and notes ccache's hits and misses for the step
  local before
  before="$(pinbench_ccache_counters)"
  "$@"
  step_note="  (ccache: $(pinbench_ccache_figures "$before"))"
  echo "ci: ccache: $(pinbench_ccache_figures "$before")"
}
wine_pid=""
report() {
  local status=$?
  [[ -n $current ]] && timings+=("$(printf 'ci: step %-15s FAILED after %d s' "$current" $((SECONDS - step_start)))")
  if [[ -n $wine_pid && $current != windows-tests ]]; then  # a step failed while the Wine tests ran
    echo "ci: waiting for the Wine tests (ci/check_windows.sh) that run in the background"
    wait "$wine_pid" && echo "ci: the Wine tests passed" || echo "ci: the Wine tests FAILED"
    cat "$wine_log"
  fi
  echo "ci: ---------------------------------------------------------------- timings"
  printf '%s\n' "${timings[@]}"
  printf 'ci: all steps took %d s (%s)\n' $((SECONDS - started)) "$( ((status)) && echo "FAILED, exit $status" || echo passed)"
}
trap report EXIT

# --- The checks -------------------------------------------------------------------------------
step setup ci/setup-debian.sh --test  # the test toolchain too (Wine, mingw-w64, Chromium, clang-tidy)
# Style first (seconds): pinned clang-format and ruff (ci/check_style.sh --fix rewrites).
step style ci/check_style.sh
# The layering (seconds): every include and import against docs/architecture.md's tables.
step layers .venv/bin/python ci/check_layers.py
# The test layout (seconds): every source has a test named after it or a row in docs/tests.md.
step test-mirror .venv/bin/python ci/check_test_mirror.py
step configure cmake --preset ci-nogpu
step build with_ccache cmake --build --preset ci-nogpu -j"$PINBENCH_JOBS"
# A hang fails after 5 minutes instead of CTest's 25 (the slowest test, ReplayKindsWhole, takes
# one replay of the nightly, about 12 CPU-seconds, and took 90 s on a very busy machine).
step ctest ctest --preset ci-nogpu -j"$PINBENCH_JOBS" --timeout 300
# Every file a message or help text of either tool cites is one the zip and the wheel ship.
step citations .venv/bin/python ci/check_citations.py
# The libFuzzer targets (ci/fuzz.sh, docs/fuzzing.md): their own clang + AddressSanitizer build,
# then 60 s of fuzzing in all over the scenario, results and trace readers; a finding fails it.
step fuzz with_ccache ci/fuzz.sh 60
# The kernels' committed PTX is what harness/src/cuda/kernels.cu gives (skipped without nvcc), and
# pinbench builds with nvcc off the PATH, linking no CUDA library (docs/driver-api.md).
step kernels-ptx ci/kernels_ptx.sh check
step no-nvcc with_ccache ci/check_no_nvcc.sh
# clang-tidy with the checks .clang-tidy configures, on the host sources just built (minutes cold).
step tidy ci/check_tidy.sh
step cuda12-headers ci/check_cuda12_headers.sh
# The Windows code, built with mingw-w64 (ci/README.md) ...
step windows-build with_ccache ci/check_windows.sh --build-only
# The Windows zip users download, from that build: its size and import table are printed, and a
# CUDA, MSVC runtime or mingw DLL import fails it (ci/README.md, "Packages").
step package .venv/bin/python ci/package.py windows
# The pinbench wheels (ci/wheel.py; docs/pip-install.md): the Linux one installed into a fresh
# venv and run from an empty folder against the test-double driver, pip's refusals of an old
# Python and of the Windows wheel, twine check; sizes and file lists printed. The Windows one's
# contents run under Wine below (ci/wine_wheel.sh).
step wheel ci/wheel_check.sh
# ... and run under Wine: in the background (mostly waiting on Wine, its processes and the
# tests' timeouts), while clang-tidy checks the Windows code and pytest runs.
wine_log="build/mingw.check.log"
ci/check_windows.sh --test-only >"$wine_log" 2>&1 &
wine_pid=$!
wine_start=$SECONDS
# clang-tidy on the Windows code, from that build's compile commands (about a minute cold).
step tidy-windows ci/check_tidy.sh build/mingw
# Python: analysis, report and nightly-script tests. The C++ build above provides the pinbench
# binary some of them drive through the replay backend.
step pytest env PATH="$PWD/.venv/bin:$PATH" PINBENCH_EXE="$PWD/build/ci-nogpu/harness/pinbench" \
  .venv/bin/python -m pytest -q reports/tests benchmarks/test_summarize.py ci/tests
# pinreport's suite again in a venv of every dependency at its declared lower bound (from PyPI):
# the bounds in reports/pyproject.toml are tested, not hoped for (about 3 minutes).
step lower-bounds env PYTHONPATH= PINBENCH_EXE="$PWD/build/ci-nogpu/harness/pinbench" \
  .venv/bin/python ci/check_lower_bounds.py
wine_wait() {
  local status=0
  step_start=$wine_start  # its time is from its start, beside the two steps above
  wait "$wine_pid" || status=$?
  wine_pid=""
  cat "$wine_log"
  step_note="  (beside tidy-windows, pytest and lower-bounds)"
  return "$status"
}
step windows-tests wine_wait
# The tests that race threads or processes on files, again several times in a row on Linux and
# under Wine, so that one failing now and then shows here (ci/repeat_tests.sh; ci/README.md).
step repeat ci/repeat_tests.sh -n 2
# The nightly workflows: actionlint and the GitHub workflow schema.
step workflows env PATH="$PWD/.venv/bin:$PATH" ci/check_workflows.sh
