#!/usr/bin/env bash
# The driver-API core as users run it (Linux control, not Windows): beside a neighbour process,
# then cancelled halfway. Reuses the earlier measurements' scripts unchanged so the figures
# compare with theirs:
#   bash results/h200-driver-api/scripts/device-call-neighbour.sh disturbance OUT   (call 1)
#   bash results/h200-driver-api/scripts/device-call-neighbour.sh cancel OUT        (call 2)
# Carry .deps/xxhash.
set -uo pipefail
what=${1:?disturbance or cancel}
out=${2:?OUT}
case $what in
  disturbance)
    MODES="quiet steady burst pinhost" bash results/h200-disturbance/scripts/device-call.sh "$out" ;;
  cancel)
    # The cancel script builds alloc_bench too: benchmarks on, tests off.
    cmake --preset linux -DCMAKE_CUDA_ARCHITECTURES=90-real -DPINBENCH_BUILD_TESTS=OFF \
      -DPINBENCH_BUILD_BENCHMARKS=ON >/dev/null 2>&1
    bash results/h200-cancel/scripts/device-call.sh "$out" ;;
  *) echo "unknown: $what" >&2; exit 2 ;;
esac
