#!/usr/bin/env bash
# The Linux `pinbench` wheel as users get it (docs/pip-install.md): built from the release preset
# (ci/wheel.py: the manylinux tag auditwheel finds), `twine check`ed, its size and files printed,
# then installed with pip into a fresh venv and run from an empty temporary folder, no checkout on
# sys.path or the PATH, no PINREPORT, against the test-double driver (docs/test-double.md):
#   1. pinbench --version and pinreport --version print the same version;
#   2. pinreport is imported from the venv, not from a checkout;
#   3. pinbench doctor passes its controls;
#   4. pinbench run of a small scenario ends with the answer: pinbench found the pinreport
#      installed beside it (the venv's bin/ is not on the PATH);
#   5. pinreport summary on that results file;
#   6. pinbench trace loads the injection library installed beside pinbench (the CUPTI double);
#   7. the installed scenario files are there (share/pinbench/scenarios/quick.yaml plans);
#   8. pip refuses the wheel on a Python older than its Requires-Python, with its own message
#      (an older interpreter where one is found, else `pip download --python-version 3.10`);
#   9. pip refuses a win_amd64 wheel on Linux (the Linux wheel renamed: this script uses only the
#      programs it built itself, never a build/mingw another job may still be writing);
#  10. pip show (a current pip) gives the license, author and project URLs; pip uninstall leaves
#      nothing of pinbench's in the venv (no share/pinbench, no programs).
# The Windows wheel's contents run under Wine in ci/wine_double.sh (10.).
# Prints "wheel_check: N passed, N failed"; exit 1 when a check failed, 2 when a tool is missing,
# 3 when the build or the wheel failed.
#
# Usage: ci/wheel_check.sh   (PINBENCH_JOBS build jobs; PINBENCH_WHEEL_TOOLS: the folder with
# auditwheel and twine, default .venv/bin, from ci/requirements.txt)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
. ci/cache_dirs.sh
pinbench_ccache_env "$root"

tools="${PINBENCH_WHEEL_TOOLS:-$root/.venv/bin}"
for tool in auditwheel twine; do
  [[ -x $tools/$tool ]] || { echo "wheel_check: $tools/$tool not found (ci/setup-debian.sh --test installs ci/requirements.txt)" >&2; exit 2; }
done
python="$root/.venv/bin/python"

start=$SECONDS
say() { printf 'wheel_check: [%3ds] %s\n' "$((SECONDS - start))" "$*"; }
passed=0
failed=0
check() {  # DESCRIPTION COMMAND...
  local what="$1"
  shift
  if "$@"; then
    passed=$((passed + 1))
    say "ok: $what"
  else
    failed=$((failed + 1))
    say "FAILED: $what"
  fi
}

# --- the build and the wheel ----------------------------------------------------------------
build="$root/build/release"
mkdir -p "$root/build"  # a fresh checkout has none: the log goes there
say "building pinbench, the injection library and the test double (release preset)"
{ cmake --preset release && cmake --build --preset release -j"${PINBENCH_JOBS:-2}" \
    --target pinbench pinbench_trace_inject pinbench_driver_double; } >"$root/build/wheel-build.log" 2>&1 ||
  { echo "wheel_check: the release build failed:" >&2; tail -30 "$root/build/wheel-build.log" >&2; exit 3; }
out="$root/build/wheel"
rm -rf "$out"
PATH="$tools:$PATH" "$python" ci/wheel.py linux --build "$build" --out "$out" --auditwheel "$tools/auditwheel" ||
  { echo "wheel_check: ci/wheel.py linux failed" >&2; exit 3; }
wheel="$(ls "$out"/pinbench-*-manylinux_*_x86_64.whl)" || { echo "wheel_check: no Linux wheel in $out" >&2; exit 3; }
check "twine check --strict" "$tools/twine" check --strict "$out"/*.whl
say "wheels:"
ls -l "$out"/*.whl

# --- a fresh venv, an empty folder ------------------------------------------------------------
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
venv="$tmp/venv"
work="$tmp/work"
mkdir -p "$work"
say "pip install $(basename "$wheel") into a fresh venv"
python3 -m venv "$venv"
(cd "$work" && env -u PYTHONPATH "$venv/bin/python" -m pip install --quiet "$wheel") ||
  { echo "wheel_check: pip install failed" >&2; exit 3; }
cd "$work"
double="$build/harness/tests/doubles/driver"
printf '%s\n' 'total_memory = 4GiB' 'context_cost = 16MiB' 'pin_cost_per_gib.cuMemHostAlloc = 2MiB' \
  'pin_cost_per_gib.cuMemHostRegister_v2 = 1MiB' >double.conf
# The installed commands by their path, with a PATH that holds neither the venv nor a checkout.
installed() {  # COMMAND ARGS...: the venv's COMMAND, with the test double as the driver
  local command="$1"
  shift
  env -u PYTHONPATH -u PINREPORT -u PINBENCH_EXE PATH=/usr/bin:/bin LD_LIBRARY_PATH="$double/current" \
    PINBENCH_DRIVER_DOUBLE="$work/double.conf" "$venv/bin/$command" "$@"
}

versions() {
  local b r
  b="$(installed pinbench --version)"
  r="$(installed pinreport --version)"
  echo "wheel_check: $b; $r"
  [[ $b == "pinbench ${r#pinreport }" && $b =~ ^pinbench\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}
check "pinbench --version and pinreport --version agree" versions

no_checkout() {
  local where
  where="$(installed python -c 'import pinreport, sys; print(pinreport.__file__); print(*sys.path, sep="\n")')"
  echo "$where" | head -1
  [[ $(head -1 <<<"$where") == "$venv"/lib/python*/site-packages/pinreport/__init__.py ]] &&
    ! grep -qF "$root" <<<"$where"
}
check "pinreport comes from the venv, no checkout on sys.path" no_checkout

doctor() {
  installed pinbench doctor --control-size 64MiB >doctor.log 2>&1 || { tail -20 doctor.log; return 1; }
  grep -q 'pinbench test-double GPU' doctor.log && grep -q 'PASS: every control passed' doctor.log ||
    { tail -20 doctor.log; return 1; }
}
check "pinbench doctor against the double" doctor

# The small scenario both wheel checks run (ci/wheel_check.sh, ci/wine_wheel.sh).
cp "$root/ci/wheel-small.yaml" small.yaml
run_answer() {
  installed pinbench run small.yaml -o out/small.json >run.log 2>&1 || { tail -20 run.log; return 1; }
  sed -n '/^pinbench answer:/,$p' run.log
  # pinreport summary's answer, through the pinreport beside pinbench: never "not found".
  grep -q '^pinbench answer:' run.log && grep -q 'cudaMallocHost, 1 GPU(s): 2.00 MiB per pinned GiB' run.log &&
    [[ -s out/small.summary.md ]] && ! grep -q 'pinreport not found' run.log
}
check "pinbench run ends with the answer (pinreport found beside pinbench)" run_answer

summary() {
  local rc=0
  installed pinreport summary out/small.json >summary.log 2>&1 || rc=$?
  ((rc <= 3)) && grep -q 'cudaHostRegister, 1 GPU(s): 1.00 MiB per pinned GiB' summary.log ||
    { echo "exit $rc"; tail -20 summary.log; return 1; }
}
check "pinreport summary on the results" summary

trace() {
  PINBENCH_CUPTI_LIBRARY="$double/cupti/libcupti.so" installed pinbench trace -o t.json -- \
    "$double/program/traced_program" >trace.log 2>&1 || { tail -20 trace.log; return 1; }
  installed python - "$venv" <<'EOF'
import json
import sys

tracing = json.load(open("t.json"))["tracing"]
print(f"wheel_check: trace: injection {tracing['injection']}, state {tracing['state']}")
want = f"{sys.argv[1]}/bin/libpinbench_trace_inject.so"
sys.exit(0 if tracing["injection"] == want and tracing["state"] == "on" and tracing["processes"] else 1)
EOF
}
check "pinbench trace loads the installed injection library" trace

scenarios() {
  installed pinbench plan "$venv/share/pinbench/scenarios/quick.yaml" >plan.log 2>&1 || { tail -5 plan.log; return 1; }
}
check "the installed scenarios/quick.yaml plans" scenarios

# --- pip's refusals ---------------------------------------------------------------------------
old_python() {  # an interpreter older than 3.11, where this machine has one
  local p
  for p in python3.10 python3.9 "$HOME"/.pyenv/versions/3.10*/bin/python /usr/bin/python3.10; do
    if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import sys, venv; sys.exit(sys.version_info >= (3, 11))' 2>/dev/null; then
      command -v "$p"
      return 0
    fi
  done
  return 1
}
refuses_old_python() {
  local log="$tmp/old-python.log" old
  if old="$(old_python)"; then
    say "pip install on $("$old" -V)"
    "$old" -m venv "$tmp/old-venv" && ! "$tmp/old-venv/bin/python" -m pip install --no-deps "$wheel" >"$log" 2>&1 || return 1
  else
    say "no Python older than 3.11 here: pip download --python-version 3.10"
    ! "$venv/bin/python" -m pip download --python-version 3.10 --only-binary=:all: --no-deps --no-index \
      --find-links "$out" -d "$tmp/dl" pinbench >"$log" 2>&1 || return 1
  fi
  grep -E "^ERROR: Package 'pinbench' requires a different Python: [0-9.]+ not in '>=3.11'" "$log"
}
check "pip refuses the wheel on an unsupported Python, with its own message" refuses_old_python

refuses_platform() {
  local windows="$tmp/$(basename "${wheel%%-manylinux*}")-win_amd64.whl" log="$tmp/platform.log"
  cp "$wheel" "$windows"
  say "the Linux wheel renamed $(basename "$windows")"
  ! "$venv/bin/python" -m pip install --no-deps "$windows" >"$log" 2>&1 || return 1
  grep -E "^ERROR: $(basename "$windows") is not a supported wheel on this platform" "$log"
}
check "pip refuses the win_amd64 wheel on Linux" refuses_platform

metadata() {
  local shown
  # The license is Metadata 2.4's License-Expression, which only a current pip shows: the pip the
  # venv came with (Python 3.11's own, 23.2) prints an empty "License:". Upgraded here, after the
  # install above was done with the old one.
  "$venv/bin/python" -m pip install --quiet --upgrade pip >/dev/null 2>&1 || { echo "pip upgrade failed"; return 1; }
  shown="$("$venv/bin/python" -m pip show pinbench 2>&1)"
  echo "$shown" | grep -E '^(License-Expression|Author|Home-page|Project-URLs?):' || true
  grep -q '^License-Expression: Apache-2.0$' <<<"$shown" && grep -q '^Author: .' <<<"$shown" &&
    [[ -f $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.distribution("pinbench")._path)')/licenses/LICENSE ]]
}
check "pip show: license, author" metadata

uninstall() {
  "$venv/bin/python" -m pip uninstall --yes --quiet pinbench || return 1
  local left
  left="$(find "$venv" -path '*pinbench*' -o -path '*pinreport*' | grep -v '/pip/' || true)"
  [[ -z $left ]] || { echo "left behind: $left"; return 1; }
}
check "pip uninstall leaves nothing of pinbench's" uninstall

say "$passed passed, $failed failed"
echo "wheel_check: $passed passed, $failed failed"
((failed == 0))
