#!/usr/bin/env bash
# The merged tree of 2026-12-07 on one GPU machine (Linux control, not Windows), in about four
# minutes: build pinbench, `pinbench doctor`, the answer's runs of quick.yaml with the answer,
# then the same runs stopped by SIGINT after 3 s and resumed, and the output rule on a real run
# (-o /dev/stdout into a pipe). Everything into $OUT/merged-check.txt.
#   run(carry=[".deps/xxhash", ".whl"], command="bash results/merged-check/device-call.sh")
set -uo pipefail
out=${OUT:?OUT}
root=$PWD
log="$out/merged-check.txt"
exec >"$log" 2>&1
if compgen -G ".whl/*.whl" >/dev/null; then
  python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl || exit 1
fi
nvidia-smi -L
nvidia-smi --query-gpu=driver_version --format=csv,noheader
SECONDS=0
cmake --preset linux >/dev/null && cmake --build --preset linux --target pinbench >"$out/build.log" 2>&1 || {
  tail -30 "$out/build.log"
  exit 2
}
echo "build: $SECONDS s"
mkdir -p /tmp/bin
ln -sf "$root/build/linux/harness/pinbench" /tmp/bin/pinbench
printf '#!/bin/sh\nPYTHONPATH=/tmp/site:%s/reports exec python3 -m pinreport "$@"\n' "$root" >/tmp/bin/pinreport
chmod +x /tmp/bin/pinreport
export PATH=/tmp/bin:$PATH PINREPORT=/tmp/bin/pinreport
work=/tmp/Zoë-essai && mkdir -p "$work" && cd "$work" || exit 2
step() { echo; echo "\$ $*"; local t=$SECONDS; "$@"; echo "[exit $?, $((SECONDS - t)) s]"; }
step pinbench doctor
step pinbench run quick --only 'quick-overhead/*' -o out/answer.json
step pinreport html --current out/answer.json -o out/report.html
# Stopped by SIGINT after 3 s, then resumed: exit 130 and a valid partial file, then one whole file.
echo; echo '$ pinbench run quick --only quick-overhead/* -o out/cut.json   (SIGINT after 3 s)'
pinbench run quick --only 'quick-overhead/*' -o out/cut.json --no-summary 2>out/cut.err &
pid=$!
sleep 3
kill -INT "$pid"
wait "$pid"
echo "[exit $?]"
tail -2 out/cut.err
python3 -c 'import json,sys; d=json.load(open("out/cut.json")); print("complete", d["complete"], "runs", len(d["runs"]), "interrupted", d.get("interrupted", {}).get("signal"))'
step pinbench run quick --only 'quick-overhead/*' --resume out/cut.json -o out/resumed.json --no-summary
python3 -c 'import json; d=json.load(open("out/resumed.json")); print("complete", d["complete"], "runs", len(d["runs"]))'
# The output rule on a real run: /dev/stdout into a pipe stays a link, the document arrives whole.
echo; echo '$ pinbench results upgrade out/answer.json -o /dev/stdout | wc -c'
pinbench results upgrade out/answer.json -o /dev/stdout | wc -c
echo "[exit ${PIPESTATUS[0]}]"
ls -l /dev/stdout
echo "total: $SECONDS s"
