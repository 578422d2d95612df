#!/usr/bin/env bash
# The Windows user path with non-ASCII letters everywhere (docs/windows.md, "Text is UTF-8"), under Wine's ANSI code
# pages 1252 and 932: called by ci/check_windows.sh after ci/wine_double.sh, with WINEPREFIX set
# to that run's own copy of the prefix (the test-double nvcuda.dll / nvml.dll go into its
# System32, as there). For each code page (Wine takes it from the Unix locale: C.UTF-8 gives
# 1252, ja_JP.UTF-8 gives 932; a small program asserts which one came), in a folder named
# "José Müller 田中" (the program's own folder, the current folder, the temporary folder and
# every file argument hold those letters):
#   1. pinbench.exe doctor against the double (exit 0, its bundle written and valid JSON);
#   2. plan of a scenario file under that name (exit 0, its runs listed);
#   3. a replay run (run --backend replay --from ...), its repeats in child processes (exit 0,
#      the results file complete, every run ok, the command recorded letter for letter, read
#      back by `results upgrade`); and one with ASCII arguments only from the same folder;
#   4. store add of that file into a store folder under that name, then store list (exit 0);
#   5. trace of the double's small program (in a folder under that name) through the injection
#      DLL beside pinbench.exe and the CUPTI double found through PINBENCH_CUPTI_LIBRARY, both under
#      that name, its events file in the non-ASCII temporary folder (exit 0, the six calls
#      traced);
#   6. pinreport summary (Linux, .venv/bin/pinreport) of the results file (exit 0), and pinreport
#      html of it into a non-ASCII folder (`-o DIR/`: report.html inside).
# ANSI code page 1252 cannot spell 田中 and 932 cannot spell é: a program that reads its
# arguments, environment or paths in the ANSI code page fails one of them under each.
# The locale must exist for Wine to read Unix file names as UTF-8 (without it they are ASCII and
# Wine cannot even start a program in such a folder): ja_JP.UTF-8 is compiled here with
# localedef into the work folder (LOCPATH; package `locales`), nothing installed; C.UTF-8 is
# glibc's own.
# Prints "wine_unicode: N passed, N failed" and exits 1 when a check failed.
#
# Usage: ci/wine_unicode.sh WINE BUILD   (BUILD: build/mingw)
#   PINBENCH_PYTHON  the Python with pinreport (default .venv/bin/python; its pinreport script
#                    beside it); without one, 6. is reported as not run
set -euo pipefail

wine="$1"
build="$(cd "$2" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/ci/cache_dirs.sh"
. "$root/ci/wine_checks.sh" wine_unicode
command -v x86_64-w64-mingw32-gcc >/dev/null || { echo "wine_unicode: x86_64-w64-mingw32-gcc not found" >&2; exit 2; }
[[ -f /usr/share/i18n/locales/ja_JP ]] ||
  { echo "wine_unicode: /usr/share/i18n/locales/ja_JP not found (apt-get install locales: ci/setup-debian.sh --test)" >&2; exit 2; }

name='José Müller 田中'
python="${PINBENCH_PYTHON:-$root/.venv/bin/python}"
pinreport="$(dirname "$python")/pinreport"
double="$build/harness/tests/doubles/driver/current"
cupti="$build/harness/tests/doubles/driver/cupti/cupti64_test_double.dll"
traced_program="$build/harness/tests/doubles/driver/program/traced_program.exe"
injection="$build/harness/pinbench_trace_inject.dll"
for f in "$build/harness/pinbench.exe" "$double/nvcuda.dll" "$double/nvml.dll" "$cupti" "$traced_program" "$injection"; do
  [[ -f $f ]] || { echo "wine_unicode: $f was not built" >&2; exit 2; }
done
double_into_system32 "$double"
work="$build/wine-unicode"
rm -rf "$work"
mkdir -p "$work"

# ja_JP.UTF-8 for this script's commands only (LOCPATH).
mkdir -p "$work/locales"
localedef -i ja_JP -f UTF-8 "$work/locales/ja_JP.UTF-8" >"$work/localedef.log" 2>&1 ||
  { echo "wine_unicode: localedef ja_JP.UTF-8 failed:" >&2; tail -5 "$work/localedef.log" >&2; exit 2; }

# Which ANSI code page a Windows program gets here.
x86_64-w64-mingw32-gcc -O1 -o "$work/acp.exe" -x c - <<'EOF'
#include <stdio.h>
#include <windows.h>
int main(void) {
    printf("%u\n", GetACP());
    return 0;
}
EOF

# The double's scripts stay in ASCII paths (the double reads them in the ANSI code page; it is
# a test tool, not the program under test). Host pinning costs nothing for doctor (as in
# ci/wine_double.sh, step 2).
conf="$work/doctor.conf"
printf '%s\n' 'devices = 2' 'total_memory = 512MiB' 'reserved_memory = 32MiB' 'context_cost = 16MiB' >"$conf"
trace_conf="$work/trace.conf"
printf '%s\n' 'devices = 1' 'total_memory = 512MiB' 'context_cost = 16MiB' 'pin_cost_per_gib.cuMemHostAlloc = 2MiB' >"$trace_conf"

# Checks a JSON file with Python: `doc` is the document, `problems` what is wrong.
json_ok() {  # FILE PYTHON_CHECK
  python3 - "$1" "$2" <<'EOF'
import json
import sys

try:
    doc = json.load(open(sys.argv[1], encoding="utf-8"))
except (OSError, ValueError) as e:
    sys.exit(f"wine_unicode: {sys.argv[1]}: {e}")
problems = []
exec(sys.argv[2])
for p in problems:
    print(f"wine_unicode: {sys.argv[1]}: {p}")
sys.exit(1 if problems else 0)
EOF
}

user_path() {  # LOCALE CODE_PAGE
  local locale="$1" code_page="$2"
  # Every Wine command in this locale (the wineserver too: the first command starts it).
  local wine_in=(env LOCPATH="$work/locales" LANG="$locale" LC_ALL="$locale" "$wine")
  wineserver -k 2>/dev/null || true
  wineserver -w 2>/dev/null || true
  local got
  got="$("${wine_in[@]}" "$work/acp.exe" | tr -d '\r')"
  say "LANG=$locale: ANSI code page $got"
  check "ANSI code page $code_page under $locale" test "$got" = "$code_page"

  local home="$work/cp$code_page/$name"
  local app="$home/pinbench $name" temp="$home/Temp $name" program="$home/program $name"
  mkdir -p "$app" "$temp" "$program"
  cp "$build/harness/pinbench.exe" "$injection" "$cupti" "$app/"
  cp "$traced_program" "$program/"
  cp "$root/scenarios/quick.yaml" "$home/quick $name.yaml"
  cp "$root/results/h200-quick/results.json" "$home/h200 $name.json"
  local v
  # Wine takes them from the registry, not from the Linux environment (this run's prefix copy)
  for v in TEMP TMP; do
    "${wine_in[@]}" reg add 'HKCU\Environment' /v "$v" /t REG_SZ /d "$(windows_path "$temp")" /f >/dev/null 2>&1
  done
  cd "$home"
  local pinbench=("${wine_in[@]}" "$app/pinbench.exe")

  doctor() {
    PINBENCH_DRIVER_DOUBLE="$(windows_path "$conf")" "${pinbench[@]}" doctor --bundle "doctor $name.json" \
      --control-size 128MiB >doctor.log 2>&1 || { echo "doctor exited $?"; tail -20 doctor.log; return 1; }
    grep -q 'pinbench test-double GPU' doctor.log || { echo "doctor did not name the double's device"; return 1; }
    json_ok "doctor $name.json" 'problems += [] if isinstance(doc, dict) and doc else ["empty bundle"]'
  }
  check "doctor ($code_page)" doctor

  plan() {
    "${pinbench[@]}" plan "$(windows_path "$home/quick $name.yaml")" >plan.log 2>&1 ||
      { echo "plan exited $?"; tail -5 plan.log; return 1; }
    grep -q '^quick-overhead/cudaMallocHost/64MiB/x1/g1 ' plan.log || { echo "plan listed no runs"; head -5 plan.log; return 1; }
  }
  check "plan ($code_page)" plan

  replay() {
    "${pinbench[@]}" run --backend replay --from "h200 $name.json" -o "results $name.json" --no-summary \
      --only 'quick-overhead/cudaMallocHost/*' >replay.log 2>&1 || { echo "run exited $?"; tail -20 replay.log; return 1; }
    json_ok "results $name.json" '
runs = doc["runs"]
if not doc.get("complete"):
    problems.append("not complete")
got = [(r["id"], r["status"], r.get("reason")) for r in runs]
if len(runs) != 4 or any(r["status"] != "ok" for r in runs):
    problems.append(f"runs {got}, expected 4 ok")
want = ["run", "--backend", "replay", "--from", "h200 José Müller 田中.json", "-o", "results José Müller 田中.json"]
command = doc["command"]
if command[1:8] != want:
    problems.append(f"command recorded as {command}")
if "José Müller 田中" not in command[0]:
    problems.append(f"the program path recorded as {command[0]}")
' || return 1
    "${pinbench[@]}" results upgrade "results $name.json" -o "upgraded $name.json" >upgrade.log 2>&1 ||
      { echo "results upgrade exited $?"; cat upgrade.log; return 1; }
  }
  check "replay run from a non-ASCII folder ($code_page)" replay

  # The same with ASCII arguments only: the program's folder and the current folder still hold
  # the letters (before the fix: "[json.exception.type_error.316] invalid UTF-8 byte" and no file).
  replay_ascii() {
    cp "h200 $name.json" h200.json
    "${pinbench[@]}" run --backend replay --from h200.json -o results.json --no-summary \
      --only 'quick-overhead/cudaMallocHost/64MiB/*' >replay-ascii.log 2>&1 ||
      { echo "run exited $?"; tail -20 replay-ascii.log; return 1; }
    json_ok results.json '
if not doc.get("complete") or [r["status"] for r in doc["runs"]] != ["ok"]:
    problems.append("not one complete ok run")
if "José Müller 田中" not in doc["command"][0]:
    problems.append("the program path recorded as " + doc["command"][0])
'
  }
  check "replay run with ASCII arguments from a non-ASCII folder ($code_page)" replay_ascii

  store() {
    "${pinbench[@]}" store add "results $name.json" --store "Store $name" >store.log 2>&1 ||
      { echo "store add exited $?"; tail -5 store.log; return 1; }
    "${pinbench[@]}" store list --store "Store $name" >store-list.log 2>&1 ||
      { echo "store list exited $?"; tail -5 store-list.log; return 1; }
    local stored
    stored="$(find "Store $name" -name '*.json*' ! -name store.json | wc -l)"
    ((stored == 1)) || { echo "$stored files in the store, expected 1"; return 1; }
    grep -q 'nvidia-h200' store-list.log || { echo "store list did not list it"; cat store-list.log; return 1; }
  }
  check "store add into a non-ASCII folder ($code_page)" store

  trace() {
    PINBENCH_DRIVER_DOUBLE="$(windows_path "$trace_conf")" PINBENCH_CUPTI_LIBRARY="$(windows_path "$app/cupti64_test_double.dll")" \
      "${pinbench[@]}" trace -o "trace $name.json" -- "$(windows_path "$program/traced_program.exe")" >trace.log 2>&1 ||
      { echo "trace exited $?"; tail -20 trace.log; return 1; }
    json_ok "trace $name.json" '
tracing = doc["tracing"]
state, message, processes = tracing["state"], tracing["message"], tracing["processes"]
if state != "on" or [p["error"] for p in processes] != [""]:
    problems.append(f"tracing {state}: {message} {processes}")
elif "José Müller 田中" not in processes[0]["cupti"]:
    problems.append("CUPTI loaded from " + processes[0]["cupti"])
apis = [c["api"] for c in doc["calls"]]
if len(apis) != 6:
    problems.append(f"calls {apis}, expected 6")
'
  }
  check "trace from a non-ASCII folder ($code_page)" trace

  summary() {
    [[ -x $pinreport ]] || { say "not run: pinreport summary ($pinreport not found)"; return 0; }
    [[ -f "results $name.json" ]] || { echo "no results file to summarise"; return 1; }
    "$pinreport" summary "$home/results $name.json" >summary.log 2>&1 ||
      { echo "pinreport summary exited $?"; tail -5 summary.log; return 1; }
    grep -q "results $name.json" summary.log || { echo "the summary did not name the file"; head -5 summary.log; return 1; }
  }
  check "pinreport summary of the results ($code_page)" summary

  html() {
    [[ -x $pinreport ]] || { say "not run: pinreport html ($pinreport not found)"; return 0; }
    [[ -f "results $name.json" ]] || { echo "no results file for the report"; return 1; }
    "$pinreport" html --store "$home/Store $name" --current "$home/results $name.json" -o "$home/report $name/" \
      >html.log 2>&1 ||
      { echo "pinreport html exited $?"; tail -5 html.log; return 1; }
    [[ -s "$home/report $name/report.html" ]] || { echo "no report.html in the report's folder"; ls "$home"; return 1; }
  }
  check "pinreport html of the results into a non-ASCII folder ($code_page)" html

  cd "$work"
  wineserver -k 2>/dev/null || true
}

user_path C.UTF-8 1252
user_path ja_JP.UTF-8 932

say "wine_unicode: $passed passed, $failed failed"
echo "wine_unicode: $passed passed, $failed failed"
((failed == 0))
