#!/usr/bin/env bash
# The one device call behind results/advice/<machine>/ (the lead's; README.md has the call):
# build pinbench, its injection library and the two benchmarks the advice reads; a store of this
# machine from scenarios/quick.yaml; then run_on_gpu.sh (trace, advise, change, trace again).
# Everything that comes back is packed into $OUT (the device returns 8 files at most).
set -u
cd "$(dirname "$0")/../../.."
t0=$SECONDS
work=/tmp/advice-call
rm -rf "$work" && mkdir -p "$work/files"
nvidia-smi > "$work/files/nvidia-smi.txt" 2>&1
{
  cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
    -DPINBENCH_BUILD_BENCHMARKS=ON -DPINBENCH_BUILD_TESTS=OFF &&
    cmake --build build/gpu --target pinbench pinbench_trace_inject transfer_bench staging_bench -j16
} > "$work/files/build.log" 2>&1 || { tail -30 "$work/files/build.log"; exit 1; }
echo "built after $((SECONDS - t0)) s"
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/advice-site .whl/*.whl
export PYTHONPATH=/tmp/advice-site:$PWD/reports
build/gpu/harness/pinbench run scenarios/quick.yaml -o "$work/files/quick.json" --store "$work/store" \
  > "$work/files/quick.log" 2>&1
echo "quick.yaml: exit $? after $((SECONDS - t0)) s"
tail -25 "$work/files/quick.log"
bash results/advice/run_on_gpu.sh build/gpu/harness/pinbench "$work/store" "$work/advice"
echo "run_on_gpu.sh: exit $? after $((SECONDS - t0)) s"
cat "$work/advice/log.txt" | tail -40
tar -C "$work" -czf "$OUT/advice-call.tgz" files advice
ls -la "$OUT"
