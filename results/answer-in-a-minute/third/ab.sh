#!/usr/bin/env bash
# A same-machine A/B of the nightly's runs this session changed, in the session's last device
# seconds (the second and third calls got different machines): the new tree first (the machine's
# first touch, against it), then today's, on the same selection of scenarios/nightly.yaml:
# cudaMallocHost's overhead runs (one process: the holder), the max_pinnable runs (the cap's own
# pin held for its probes) and the workers runs (the holder stands aside: unchanged).
set -uo pipefail
out=${OUT:?OUT}
root=$PWD
SECONDS=0
bash results/answer-in-a-minute/third/make_old_tree.sh || exit 2
build() {
  cmake -S "$1" -B "$2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90-real \
    -DPINBENCH_BUILD_BENCHMARKS=OFF \
    -DPINBENCH_BUILD_TESTS=OFF >/dev/null && cmake --build "$2" --target pinbench -j 8 >/dev/null
}
build "$root/old-tree" "$root/build/old" & a=$!
build "$root" "$root/build/gpu" & b=$!
wait $a && wait $b || { echo "a build failed"; exit 3; }
echo "builds: $SECONDS s" | tee "$out/ab.txt"
sel=(--only 'nightly-overhead/cudaMallocHost/*' --only 'nightly-max-pinnable/*' --only 'nightly-workers/*')
for tree in new old; do
  exe=$root/build/gpu/harness/pinbench
  [[ $tree == old ]] && exe=$root/build/old/harness/pinbench
  t=$SECONDS
  timeout -s INT 80 "$exe" run scenarios/nightly.yaml "${sel[@]}" --all-repeats -o "$out/ab-$tree.json" \
    --no-summary >"$out/ab-$tree.log" 2>&1
  echo "$tree: pinbench run exit $? after $((SECONDS - t)) s" | tee -a "$out/ab.txt"
done
python3 results/answer-in-a-minute/final/medians.py "$out/ab-old.json" "$out/ab-new.json" | tail -3 | tee -a "$out/ab.txt"
