#!/usr/bin/env bash
# Builds everything and runs every test that needs no GPU (GPU tests skip with the reason),
# then the CUDA 12.9 header check and the Windows tests (mingw-w64 build, run under Wine).
# This is the README's test command; .ci/run calls it.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/setup-debian.sh --test  # the test toolchain too (Wine, mingw-w64, Chromium, clang-tidy)
# Style first (seconds): pinned clang-format and ruff (ci/check_style.sh --fix rewrites).
ci/check_style.sh
cmake --preset ci-nogpu
cmake --build --preset ci-nogpu -j2
ctest --preset ci-nogpu -j2
# clang-tidy with the checks .clang-tidy configures, on the host sources just built (minutes cold).
PINBENCH_JOBS="${PINBENCH_JOBS:-2}" ci/check_tidy.sh
ci/check_cuda12_headers.sh
# The Windows code, built with mingw-w64 and run under Wine (ci/README.md).
PINBENCH_JOBS="${PINBENCH_JOBS:-2}" ci/check_windows.sh
# clang-tidy on the Windows code, from that build's compile commands (about a minute cold).
PINBENCH_JOBS="${PINBENCH_JOBS:-2}" ci/check_tidy.sh build/mingw
# Python: analysis, report and nightly-script tests. The C++ build above provides the pinbench
# binary some of them drive through the replay backend.
PATH="$PWD/.venv/bin:$PATH" PINBENCH_EXE="$PWD/build/ci-nogpu/harness/pinbench" .venv/bin/python -m pytest -q reports/tests benchmarks/test_summarize.py ci/tests
# The nightly workflows: actionlint and the GitHub workflow schema.
PATH="$PWD/.venv/bin:$PATH" ci/check_workflows.sh
