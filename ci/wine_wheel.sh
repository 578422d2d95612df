#!/usr/bin/env bash
# The Windows `pinbench` wheel's contents under Wine, as ci/wheel_check.sh runs the Linux one
# (docs/pip-install.md): ci/wheel.py windows from the mingw-w64 build, installed by pip as a
# Windows machine's pip lays it out (`pip install --platform win_amd64 --target DIR`: bin/ with
# pinbench.exe and the injection DLL, share/pinbench/, pinreport/), then run from an empty folder
# against the test-double nvcuda.dll / nvml.dll in this run's System32:
#   0. `twine check --strict` of the wheel's metadata (the Linux one's: ci/wheel_check.sh);
#   1. pinbench.exe --version and the wheel's pinreport --version agree;
#   2. pinbench.exe doctor passes its controls;
#   3. pinbench.exe run of a small scenario: complete, and, Wine having no Windows Python and so no
#      pinreport.exe beside it, its last line says pinreport was looked for beside pinbench.exe and
#      that `pip install --force-reinstall pinbench` installs it there;
#   4. the wheel's pinreport summary on those results (Linux Python, the wheel's own code);
#   5. pinbench.exe trace loads the injection DLL installed beside it (the CUPTI double);
#   6. the installed share/pinbench/scenarios/quick.yaml plans.
# Called by ci/check_windows.sh after ci/wine_double.sh, with WINEPREFIX set to that run's copy.
# Prints "wine_wheel: N passed, N failed"; exit 1 when a check failed.
#
# Usage: ci/wine_wheel.sh WINE BUILD   (BUILD: build/mingw; PINBENCH_PYTHON: default .venv/bin/python)
set -euo pipefail

wine="$1"
build="$(cd "$2" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/ci/cache_dirs.sh"
. "$root/ci/wine_checks.sh" wine_wheel
python="${PINBENCH_PYTHON:-$root/.venv/bin/python}"

double="$build/harness/tests/doubles/driver/current"
double_into_system32 "$double"
# The logs in BUILD/wine-wheel; the installed wheel and the empty folder outside the checkout, so
# that pinbench.exe cannot find the checkout's .venv above itself.
top="$build/wine-wheel"
rm -rf "$top"
mkdir -p "$top"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/empty"

say "ci/wheel.py windows, pip install --platform win_amd64 --target"
"$python" "$root/ci/wheel.py" windows --build "$build" --out "$top/dist" >"$top/wheel.log" 2>&1 ||
  { tail -20 "$top/wheel.log"; exit 1; }
wheel="$(ls "$top"/dist/pinbench-*-py3-none-win_amd64.whl)"
grep -v '^wheel:   ' "$top/wheel.log"
inst="$tmp/installed"
env -u PIP_FIND_LINKS "$python" -m pip install --quiet --no-deps --no-index --platform win_amd64 --only-binary=:all: \
  --target "$inst" "$wheel" >"$top/pip.log" 2>&1 || { cat "$top/pip.log"; exit 1; }
cd "$tmp/empty"
# Pinning costs nothing here: a priced pin's release was seen as an idle move under Wine
# (disturbed runs, as ci/wine_double.sh's doctor notes); the README check's script does the same.
printf '%s\n' 'total_memory = 2GiB' 'context_cost = 16MiB' >"$top/double.conf"
pinbench() {  # ARGS...: the installed pinbench.exe with the double's script
  PINBENCH_DRIVER_DOUBLE="$(windows_path "$top/double.conf")" "$wine" "$inst/bin/pinbench.exe" "$@"
}
pinreport() {  # ARGS...: the wheel's pinreport, on this Linux Python
  env -u PINREPORT PYTHONPATH="$inst" "$python" -m pinreport "$@"
}

twine_check() { "$(dirname "$python")/twine" check --strict "$wheel"; }
check "twine check --strict" twine_check

versions() {
  local b r
  b="$(pinbench --version | tr -d '\r')"
  r="$(pinreport --version)"
  echo "wine_wheel: $b; $r"
  [[ $b == "pinbench ${r#pinreport }" && $b =~ ^pinbench\ [0-9]+\.[0-9]+\.[0-9]+$ ]]
}
check "pinbench.exe --version and the wheel's pinreport --version agree" versions

doctor() {
  pinbench doctor --control-size 64MiB >"$top/doctor.log" 2>&1 || { tail -20 "$top/doctor.log"; return 1; }
  grep -aq 'pinbench test-double GPU' "$top/doctor.log" && grep -aq 'PASS: every control passed' "$top/doctor.log"
}
check "the installed pinbench.exe doctor against the double" doctor

# The small scenario both wheel checks run (ci/wheel_check.sh, ci/wine_wheel.sh).
cp "$root/ci/wheel-small.yaml" small.yaml
run_small() {
  pinbench run small.yaml -o out/small.json >"$top/run.log" 2>&1 || { tail -20 "$top/run.log"; return 1; }
  tail -2 "$top/run.log"
  local last
  last="$(tail -1 "$top/run.log" | tr -d '\r')"
  # Every run ok; pinreport looked for beside pinbench.exe first (the Linux console script pip
  # wrote there is no Windows program), and the way to get it named.
  grep -aq '^runs: 6 ok' "$top/run.log" &&
    [[ $last == "pinbench: pinreport not found ($(windows_path "$inst")\bin\pinreport: "*"pip install --force-reinstall pinbench"* ]]
}
check "pinbench.exe run: complete, pinreport looked for beside it" run_small

summary() {
  local rc=0
  pinreport summary out/small.json >"$top/summary.log" 2>&1 || rc=$?
  ((rc <= 3)) && grep -q '^pinbench answer: pinbench-test-double-gpu' "$top/summary.log" &&
    grep -q 'Nothing failed, was waived or was disturbed' "$top/summary.log" ||
    { echo "exit $rc"; tail -20 "$top/summary.log"; return 1; }
}
check "the wheel's pinreport summary on those results" summary

trace() {
  local program="$build/harness/tests/doubles/driver/program/traced_program.exe"
  PINBENCH_CUPTI_LIBRARY="$(windows_path "$build/harness/tests/doubles/driver/cupti/cupti64_test_double.dll")" \
    pinbench trace -o t.json -- "$(windows_path "$program")" >"$top/trace.log" 2>&1 || { tail -20 "$top/trace.log"; return 1; }
  "$python" - "$(windows_path "$inst/bin/pinbench_trace_inject.dll")" <<'EOF'
import json
import sys

tracing = json.load(open("t.json", encoding="utf-8"))["tracing"]
print(f"wine_wheel: trace: injection {tracing['injection']}, state {tracing['state']}")
ok = tracing["injection"].lower() == sys.argv[1].lower() and tracing["state"] == "on" and tracing["processes"]
sys.exit(0 if ok else 1)
EOF
}
check "pinbench.exe trace loads the injection DLL installed beside it" trace

scenarios() {
  pinbench plan "$(windows_path "$inst/share/pinbench/scenarios/quick.yaml")" >"$top/plan.log" 2>&1 ||
    { tail -5 "$top/plan.log"; return 1; }
}
check "the installed scenarios\\quick.yaml plans" scenarios

wineserver -k 2>/dev/null || true
say "wine_wheel: $passed passed, $failed failed"
echo "wine_wheel: $passed passed, $failed failed"
((failed == 0))
