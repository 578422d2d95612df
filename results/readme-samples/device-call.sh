#!/usr/bin/env bash
# The README's first three commands as a new user types them, on one GPU machine (the Linux
# control, not Windows): `pinbench doctor`, `pinbench run quick -o out/quick.json`, then
# `pinreport html out/quick.json -o report.html`. Their screens are the README's samples.
# From the repository root, through the device tool (carry .deps/xxhash and .whl: the wheels of
# pinreport's imports the machine's python lacks, as results/h200-main-answer/README.md says):
#   bash results/readme-samples/device-call.sh        ($OUT set by the device tool)
set -uo pipefail
out=${OUT:?OUT}
root=$PWD
mkdir -p "$out"
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
fi
nvidia-smi -L >"$out/machine.txt"
nvidia-smi --query-gpu=driver_version,memory.total --format=csv,noheader >>"$out/machine.txt"
cmake --preset linux >/dev/null && cmake --build --preset linux --target pinbench >"$out/build.log" 2>&1 || {
  tail -30 "$out/build.log"
  exit 2
}
# pinbench and pinreport on PATH, as the wheel installs them.
mkdir -p /tmp/bin
ln -sf "$root/build/linux/harness/pinbench" /tmp/bin/pinbench
printf '#!/bin/sh\nPYTHONPATH=/tmp/site:%s/reports exec python3 -m pinreport "$@"\n' "$root" >/tmp/bin/pinreport
chmod +x /tmp/bin/pinreport
export PATH=/tmp/bin:$PATH PINREPORT=/tmp/bin/pinreport
# A user's folder, with a non-ASCII name.
work=/tmp/Téléchargements/essai
mkdir -p "$work" && cd "$work" || exit 2
{
  t0=$SECONDS
  echo '$ pinbench doctor'
  pinbench doctor
  echo "[exit $?, $((SECONDS - t0)) s]"
} >"$out/doctor.txt" 2>&1
{
  t0=$SECONDS
  echo '$ pinbench run quick -o out/quick.json'
  pinbench run quick -o out/quick.json
  echo "[exit $?, $((SECONDS - t0)) s]"
  t0=$SECONDS
  echo '$ pinreport html out/quick.json -o report.html'
  pinreport html out/quick.json -o report.html
  echo "[exit $?, $((SECONDS - t0)) s]"
} >"$out/run.txt" 2>&1
cp out/quick.json report.html "$out/" 2>/dev/null
ls -la out >>"$out/run.txt"
cat "$out/machine.txt" "$out/doctor.txt" "$out/run.txt"
