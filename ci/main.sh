#!/usr/bin/env bash
# The main job on a Linux machine with an NVIDIA GPU: build, check the probes with the
# controls (pinbench doctor), then run scenarios/quick.yaml. Results go to out/.
# Without a GPU it says so and shows how to try the replay backend on committed results.
# SKIP_SETUP=1 skips ci/setup-debian.sh (machines where packages are already there).
set -euo pipefail
cd "$(dirname "$0")/.."
[[ ${SKIP_SETUP:-0} == 1 ]] || ci/setup-debian.sh
cmake --preset linux >/dev/null
cmake --build --preset linux
pinbench=build/linux/harness/pinbench
mkdir -p out
if ! nvidia-smi -L >/dev/null 2>&1; then
  echo "pinbench: no NVIDIA GPU here, nothing to measure. Try the replay backend on committed results:"
  echo "  $pinbench run --backend replay --from results/h200-quick/results.json --script scenarios/replay/relabel-demo.yaml -o out/replayed.json"
  exit 0
fi
"$pinbench" doctor --bundle out/doctor.json
"$pinbench" run scenarios/quick.yaml -o out/quick.json
