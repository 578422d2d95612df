#!/usr/bin/env bash
# One device call (results/answer-in-a-minute/probe/README.md): where the main job's time goes, step
# by step, with today's tree, and what a fresh child's fixed time is made of (child_cost.cpp).
#   run(carry=[".deps/xxhash", ".whl"], command="bash results/answer-in-a-minute/probe/probe-call.sh")
set -u
out=${OUT:?OUT}
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD/reports
nvidia-smi -L | tee "$out/steps.txt"
step() {  # NAME COMMAND...: its wall time, a line in steps.txt
  local name=$1 t=$EPOCHREALTIME rc=0
  shift
  "$@" >"$out/$name.log" 2>&1 || rc=$?
  printf '%-28s exit %d after %.1f s\n' "$name" "$rc" "$(bc <<<"$EPOCHREALTIME - $t")" | tee -a "$out/steps.txt"
}
step build bash -c 'cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
  -DPINBENCH_BUILD_BENCHMARKS=OFF -DPINBENCH_BUILD_TESTS=OFF && cmake --build build/gpu --target pinbench -j16'
step probe-build g++ -O2 -std=c++17 -I/usr/local/cuda/include -o /tmp/child_cost \
  results/answer-in-a-minute/probe/child_cost.cpp -ldl
step probe-series /tmp/child_cost series 12
step probe-idle-check /tmp/child_cost idle-check
step probe-beside /tmp/child_cost beside 6
pb=build/gpu/harness/pinbench
step doctor $pb doctor --bundle /tmp/doctor.json
step run-overhead-only $pb run scenarios/quick.yaml --only 'quick-overhead/*' -o "$out/overhead.json" --no-summary
step store-add $pb store add "$out/overhead.json" --store /tmp/store
step budget $pb budget -o "$out/budget.json"
step pinreport-help python3 -m pinreport --help
step pinreport-summary python3 -m pinreport summary "$out/overhead.json" --store /tmp/store --budget "$out/budget.json"
step pinreport-html python3 -m pinreport html --store /tmp/store --current "$out/overhead.json" --budget "$out/budget.json" -o /tmp/report.html
tar -czf "$out/logs.tar.gz" -C "$out" --remove-files $(cd "$out" && ls *.log)
