#!/usr/bin/env bash
# ci/main.sh on a fresh checkout on the one-H200 machine: its wall time and its printed answer.
# From the repository root, through the device tool (carry .deps/xxhash, and .whl when the
# machine's python lacks jsonschema, fastjsonschema or xxhash: see README.md):
#   bash results/h200-main-answer/scripts/device-call.sh        ($OUT set by the device tool)
# The machine has no internet and no apt: SKIP_SETUP=1; pinreport runs from the source tree
# (python3 -m pinreport, PYTHONPATH=reports), as ci/main.sh does where no .venv exists.
set -uo pipefail
out=${OUT:?OUT}
mkdir -p "$out"
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
  export PYTHONPATH=/tmp/site
fi
# A fresh checkout: the tracked tree (and the carried .deps) copied anew, no build/, no out/.
fresh=/tmp/pinbench-fresh
rm -rf "$fresh" && mkdir -p "$fresh"
tar --exclude=./build --exclude=./out --exclude=./.venv --exclude=./.git -cf - . | tar -xf - -C "$fresh"
cd "$fresh" || exit 1
nvidia-smi -L | tee "$out/nvidia-smi.txt"
t0=$SECONDS
SKIP_SETUP=1 bash ci/main.sh >"$out/main.log" 2>&1
rc=$?
echo "ci/main.sh: exit $rc after $((SECONDS - t0)) s wall (build, doctor, quick.yaml, pinreport)" | tee "$out/wall.txt"
# The printed answer: everything after the last build line.
sed -n '/^pinbench answer:/,$p' "$out/main.log" | tee "$out/answer.txt"
cp out/summary.md out/report.html out/quick.json out/doctor.json "$out/" 2>/dev/null
tail -40 "$out/main.log" >"$out/main-tail.log"
exit "$rc"
