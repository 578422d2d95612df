#!/usr/bin/env bash
# The second device call behind results/answer-in-a-minute (README.md): the first call's run beside
# device-burst was cut by its deadline before any run ended; this one runs a single overhead run
# (5 repeats planned) beside the same neighbour with the default retries, long enough to end.
set -u
out=${OUT:?OUT}
cmake -S . -B build/gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
  -DPINBENCH_BUILD_BENCHMARKS=OFF -DPINBENCH_BUILD_TESTS=OFF >/tmp/build.log 2>&1 &&
  cmake --build build/gpu --target pinbench pinbench_neighbour -j16 >>/tmp/build.log 2>&1 || { tail -20 /tmp/build.log; exit 3; }
build/gpu/tools/pinbench_neighbour device-burst --bytes 20 --seconds 200 --seed 1 >"$out/neighbour.log" 2>&1 &
neighbour=$!
sleep 3
t=$SECONDS
timeout -s INT -k 15 190 build/gpu/harness/pinbench run scenarios/quick.yaml \
  --only 'quick-overhead/cudaMallocHost/64MiB/*' -o "$out/neighbour.json" --no-summary >"$out/neighbour-run.log" 2>&1
echo "beside device-burst: pinbench run exit $? after $((SECONDS - t)) s" | tee "$out/wall.txt"
kill $neighbour 2>/dev/null; wait $neighbour 2>/dev/null
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("complete:", d.get("complete")); [print(r["id"], r["status"], r.get("stopping"), [x["status"] for x in r.get("repeats", [])]) for r in d["runs"]]' "$out/neighbour.json" | tee -a "$out/wall.txt"
tail -15 "$out/neighbour-run.log"
