#!/usr/bin/env bash
# The last device call of 2026-11-30, run from the repository root on the H200 machine:
#   bash results/h200-nightly/scripts/device-call.sh OUT_DIR
# 1. GPU tests of the staging ring with the defaults chosen from the staging curve;
# 2. staging_bench H2D rows with 8 and 16 copy threads (is the 1 GiB target reachable?);
# 3. ci/nightly.sh end to end on the real GPU: doctor, a subset of quick.yaml, store (seeded
#    with the two committed real runs), compare, HTML report. Benchmarks skipped for time.
# pinreport runs from the source tree; jsonschema and its deps come as carried wheels (.whl).
set -uo pipefail
out=${1:?OUT_DIR}
mkdir -p "$out"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD/reports
mkdir -p /tmp/bin && printf '#!/bin/sh\nexec python3 -m pinreport "$@"\n' >/tmp/bin/pinreport && chmod +x /tmp/bin/pinreport
t0=$SECONDS
cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real >"$out/configure.log" 2>&1 &&
  cmake --build --preset linux -j16 >"$out/build.log" 2>&1 || { tail -30 "$out/build.log"; exit 1; }
echo "build: $((SECONDS - t0)) s"
ctest --preset linux -L gpu -R Staging >"$out/gpu-tests-staging.log" 2>&1
echo "staging gpu tests: exit $?"; grep -E "tests passed" "$out/gpu-tests-staging.log"
export CUDA_DEVICE_ORDER=PCI_BUS_ID
t1=$SECONDS
timeout 180 build/linux/benchmarks/staging_bench --benchmark_filter='staging_baseline/pinned/h2d|staging/h2d/.*/T:(8|16)/' \
  --benchmark_out="$out/staging_bench_t16.json" --benchmark_out_format=json >"$out/staging_bench_t16.log" 2>&1
echo "staging_bench: exit $? after $((SECONDS - t1)) s"
store=/tmp/pinbench-store
build/linux/harness/pinbench store add results/h200-quick/results.json results/h200-smoke/results.json --store "$store"
t2=$SECONDS
ci/nightly.sh --scenario scenarios/quick.yaml --only 'quick-overhead/*/64MiB/*' --only 'quick-overhead/*/1GiB/*' \
  --store "$store" --out "$out/nightly" --skip-build --skip-bench --pinbench build/linux/harness/pinbench \
  --pinreport /tmp/bin/pinreport >"$out/nightly.log" 2>&1
echo "nightly.sh: exit $? after $((SECONDS - t2)) s"
tail -5 "$out/nightly.log"
