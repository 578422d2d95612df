#!/usr/bin/env bash
# The two device calls of results/h200-driver-api (their commands joined): build without
# benchmarks, ldd, doctor, the driver-vs-runtime GPU test, ctest -L gpu, quick.yaml. OUT: where
# the files go. Carry .deps/xxhash.
set -u
OUT=${1:?OUT}
cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
  -DPINBENCH_BUILD_BENCHMARKS=OFF >"$OUT/configure.log" 2>&1 && cmake --build build/gpu -j16 >"$OUT/build.log" 2>&1 || exit 1
ldd build/gpu/harness/pinbench build/gpu/harness/libpinbench_trace_inject.so >"$OUT/ldd.txt"
build/gpu/harness/pinbench doctor >"$OUT/doctor.txt" 2>&1
build/gpu/harness/tests/pinbench_gpu_tests --gtest_filter='Apis/DriverVsRuntime.*' >"$OUT/driver_vs_runtime.txt" 2>&1
(cd build/gpu && CUDA_DEVICE_ORDER=PCI_BUS_ID ctest -L gpu -E DriverVsRuntime -j1 --output-on-failure) >"$OUT/ctest_gpu.txt" 2>&1
build/gpu/harness/pinbench run scenarios/quick.yaml -o "$OUT/results.json" --no-summary >"$OUT/run.log" 2>&1
