#!/usr/bin/env bash
# Planted DLLs and a planted pinreport.exe are never loaded or run (docs/windows.md, "Which DLLs
# pinbench loads", "Which programs pinbench starts"): called by ci/check_windows.sh after
# ci/wine_double.sh, with WINEPREFIX set to that run's own copy of the prefix (the test-double
# nvcuda.dll / nvml.dll in its System32, where pinbench loads them from).
#
# The DLLs planted: every DLL pinbench.exe and pinbench_trace_inject.dll import (objdump -p),
# every DLL name pinbench's sources load at run time (the "NAME.dll" string literals of
# harness/src and harness/cli), and every DLL Wine's loader mapped while the commands below ran
# once unplanted (WINEDEBUG=+loaddll: what Windows' own DLLs load on pinbench's behalf). Each is
# a marker DLL of that name (built here with mingw-w64) that exports the functions pinbench
# imports from it and, when loaded, writes NAME.loaded beside itself; pinreport.exe is a marker
# program that does the same. They are planted in:
#   - the program's folder (a copy of pinbench.exe beside them, as in an unzipped download),
#     DLLs only: pinreport.exe beside pinbench.exe is where `pip install` puts it, so it is run
#     by design (harness/cli/answer.cpp);
#   - the working folder, DLLs and pinreport.exe;
#   - the scenario's folder, DLLs and pinreport.exe;
#   - a folder on PATH (WINEPATH), DLLs only; for pinreport.exe, PATH's relative entry "." (the
#     working folder).
# Then, from the working folder with PINREPORT unset: --help, doctor, plan, a run against the
# double that ends by looking for pinreport, a replay run; once with the DLLs planted, once with
# pinreport.exe. Each must exit as expected, and no marker may appear. Prints one line per
# marker found ("wine_planted: dlls: LOADED app/pdh.dll.loaded (loaded in pid 32 from
# ...\app\pdh.dll)") and "wine_planted: N passed, N failed"; exit 1 when a check failed.
#
# Usage: ci/wine_planted.sh WINE BUILD   (BUILD: build/mingw; any build of pinbench.exe with the
#        double beside it, e.g. one of an older commit, to show what it loads)
set -euo pipefail

wine="$1"
build="$(cd "$2" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/ci/cache_dirs.sh"
. "$root/ci/wine_checks.sh" wine_planted
for tool in x86_64-w64-mingw32-gcc x86_64-w64-mingw32-objdump; do
  command -v "$tool" >/dev/null || { echo "wine_planted: $tool not found (ci/setup-debian.sh --test)" >&2; exit 2; }
done

double="$build/harness/tests/doubles/driver/current"
for f in "$build/harness/pinbench.exe" "$double/nvcuda.dll" "$double/nvml.dll"; do
  [[ -f $f ]] || { echo "wine_planted: $f was not built" >&2; exit 2; }
done
double_into_system32 "$double"
work="$build/wine-planted"
rm -rf "$work"
mkdir -p "$work"/{app,cwd,scenario,onpath,markers}
cp "$build/harness/pinbench.exe" "$work/app/"
cp "$root/scenarios/quick.yaml" "$work/scenario/quick.yaml"
printf 'devices = 1\ntotal_memory = 2GiB\nreserved_memory = 32MiB\ncontext_cost = 16MiB\n' >"$work/double.conf"
export PINBENCH_DRIVER_DOUBLE
PINBENCH_DRIVER_DOUBLE="$(windows_path "$work/double.conf")"
unset PINREPORT
pinbench=("$wine" "$work/app/pinbench.exe")

# The commands, each with the exit code it must end with; run from the working folder.
commands() {  # LOG_PREFIX: runs them all; returns the number that ended otherwise
  local prefix="$1" bad=0 rc
  run_one() {  # NAME WANT ARGS...
    local name="$1" want="$2"
    shift 2
    rc=0
    (cd "$work/cwd" && "${pinbench[@]}" "$@") >"$work/$prefix-$name.log" 2>&1 || rc=$?
    if ((rc != want)); then
      echo "wine_planted: $name: exit $rc, expected $want"
      tail -5 "$work/$prefix-$name.log"
      bad=$((bad + 1))
    fi
  }
  run_one help 0 --help
  run_one doctor 0 doctor --bundle "$prefix-bundle.json" --control-size 128MiB
  run_one plan 0 plan "$(windows_path "$work/scenario/quick.yaml")"
  rm -f "$work/cwd/$prefix-run.json"
  run_one run 0 run "$(windows_path "$work/scenario/quick.yaml")" --only 'quick-overhead/cudaMallocHost/64MiB/*' \
    --control-size 128MiB -o "$prefix-run.json"
  run_one replay 0 run --backend replay --from "$(windows_path "$root/results/h200-smoke/results.json")" \
    --only 'quick-overhead/pageable/64MiB/*' -o "$prefix-replay.json"
  return "$bad"
}

# --- 1. What is loaded, unplanted --------------------------------------------------------------
say "the commands once without plants, the loader's DLLs recorded (WINEDEBUG=+loaddll)"
unplanted() {
  local WINEDEBUG=+loaddll
  export WINEDEBUG
  commands bare
}
check "the commands exit as expected without plants" unplanted

names="$work/dll-names.txt"
{
  for binary in "$build/harness/pinbench.exe" "$build/harness/pinbench_trace_inject.dll"; do
    [[ -f $binary ]] && x86_64-w64-mingw32-objdump -p "$binary" | sed -n 's/^[[:space:]]*DLL Name: //p'
  done
  grep -rhoE '"[A-Za-z0-9_.-]+\.dll"' "$root/harness/src" "$root/harness/cli" | tr -d '"'
  # trace:loaddll:build_module Loaded L"C:\\windows\\system32\\pdh.dll" at ...: builtin
  cat "$work"/bare-*.log | sed -n 's/.*Loaded L"[^"]*\\\([^\\"]*\.[dD][lL][lL]\)".*/\1/p'
} | tr '[:upper:]' '[:lower:]' | sort -u | grep -v -e '^pinbench_trace_inject\.dll$' -e '^ntdll\.dll$' >"$names"
say "planting $(wc -l <"$names") DLLs: $(tr '\n' ' ' <"$names")"

# --- 2. The marker DLLs and pinreport.exe ------------------------------------------------------
# Imports of pinbench.exe per DLL, so that each marker exports them (a loader that would bind
# them finds every name, and the marker's DllMain runs).
x86_64-w64-mingw32-objdump -p "$build/harness/pinbench.exe" | awk '
  /^[[:space:]]*DLL Name:/ { dll = tolower($3); next }
  dll != "" && NF == 3 && $1 ~ /^[0-9a-f]+$/ && $2 ~ /^[0-9]+$/ { print dll " " $3 }' >"$work/imports.txt"
cat >"$work/markers/marker.c" <<'EOF'
#include <windows.h>
/* NAME.loaded beside this DLL, with the process that loaded it and where from. */
static void mark(HINSTANCE self) {
  wchar_t path[1024], line[1200];
  DWORD n = GetModuleFileNameW(self, path, 1000);
  if (n == 0 || n >= 1000) return;
  wsprintfW(line, L"loaded in pid %lu from %s\r\n", GetCurrentProcessId(), path);
  lstrcatW(path, L".loaded");
  HANDLE f = CreateFileW(path, FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_ALWAYS, 0, NULL);
  if (f == INVALID_HANDLE_VALUE) return;
  DWORD written;
  WriteFile(f, line, lstrlenW(line) * sizeof(wchar_t), &written, NULL);
  CloseHandle(f);
}
static HINSTANCE me;
BOOL WINAPI DllMain(HINSTANCE self, DWORD reason, LPVOID reserved) {
  (void)reserved;
  if (reason == DLL_PROCESS_ATTACH) { me = self; mark(self); }
  return TRUE;
}
/* Every export of the marker: it was called, so it was bound; the process ends. */
__declspec(dllexport) int planted_stub(void) { mark(me); ExitProcess(99); return 0; }
EOF
cat >"$work/markers/pinreport.c" <<'EOF'
#include <windows.h>
int main(void) {
  wchar_t path[1024];
  DWORD n = GetModuleFileNameW(NULL, path, 1000);
  if (n > 0 && n < 1000) {
    lstrcatW(path, L".loaded");
    HANDLE f = CreateFileW(path, GENERIC_WRITE, 0, NULL, CREATE_ALWAYS, 0, NULL);
    if (f != INVALID_HANDLE_VALUE) CloseHandle(f);
  }
  return 0;  /* a verdict: pinbench takes it for pinreport's summary */
}
EOF
x86_64-w64-mingw32-gcc -O1 -o "$work/markers/pinreport.exe" "$work/markers/pinreport.c" ||
  { echo "wine_planted: building the marker pinreport.exe failed" >&2; exit 2; }
x86_64-w64-mingw32-gcc -O1 -c -o "$work/markers/marker.o" "$work/markers/marker.c" ||
  { echo "wine_planted: compiling the marker DLL failed" >&2; exit 2; }
built=0
while read -r dll; do
  base="${dll%.dll}"
  { echo "LIBRARY $dll"; echo "EXPORTS"; echo "  planted_stub"
    awk -v d="$dll" '$1 == d && $2 != "planted_stub" { print "  " $2 "=planted_stub" }' "$work/imports.txt" | sort -u
  } >"$work/markers/$base.def"
  if x86_64-w64-mingw32-gcc -shared -o "$work/markers/$dll" "$work/markers/marker.o" "$work/markers/$base.def" \
    >>"$work/markers/build.log" 2>&1; then
    built=$((built + 1))
  else
    echo "wine_planted: building the marker $dll failed:" >&2
    tail -5 "$work/markers/build.log" >&2
    exit 2
  fi
done <"$names"

# --- 3. Planted, the commands again --------------------------------------------------------------
# Two rounds, so that what one finds cannot hide the other (a DLL that stops the program before
# main would hide a pinreport.exe the end of a run starts): the DLLs in app, cwd, scenario and a
# folder on PATH; then pinreport.exe in cwd and scenario, PATH holding the relative entry ".".
markers_found() {  # ROUND: prints each marker, returns how many
  local found=0 marker
  while IFS= read -r -d '' marker; do
    found=$((found + 1))
    echo "wine_planted: $1: LOADED ${marker#"$work"/} ($(iconv -f UTF-16LE -t UTF-8 "$marker" 2>/dev/null | head -1 | tr -d '\r'))"
  done < <(find "$work/app" "$work/cwd" "$work/scenario" "$work/onpath" -name '*.loaded' -print0 | sort -z)
  return "$found"
}
unplant() { find "$work/app" "$work/cwd" "$work/scenario" "$work/onpath" \( -name '*.dll' -o -name '*.loaded' -o -name 'pinreport.exe' \) -delete; }

for dir in app cwd scenario onpath; do
  while read -r dll; do cp "$work/markers/$dll" "$work/$dir/$dll"; done <"$names"
done
say "round 1: $built marker DLLs in app, cwd, scenario and onpath (on PATH)"
export WINEPATH
WINEPATH="$(windows_path "$work/onpath")"
dlls() { commands dlls; }
check "the commands exit as expected with the DLLs planted" dlls
no_dll() {
  local found=0
  markers_found dlls || found=$?
  echo "wine_planted: $built DLLs planted in 4 folders: $found loaded"
  ((found == 0))
}
check "no planted DLL loaded" no_dll

unplant
cp "$work/markers/pinreport.exe" "$work/cwd/pinreport.exe"
cp "$work/markers/pinreport.exe" "$work/scenario/pinreport.exe"
WINEPATH="."
say "round 2: pinreport.exe in cwd and scenario, PATH holding \".\""
programs() { commands programs; }
check "the commands exit as expected with pinreport.exe planted" programs
no_program() {
  local found=0
  markers_found programs || found=$?
  echo "wine_planted: pinreport.exe planted in 2 folders: $found run"
  ((found == 0))
}
check "no planted pinreport.exe run" no_program
# The run ended by looking for pinreport and saying none was found (PINREPORT unset, none
# beside pinbench.exe, none in PATH's absolute folders).
answer_not_planted() {
  grep -aq 'pinbench: pinreport not found' "$work/programs-run.log" ||
    { echo "the run did not end saying pinreport was not found:"; tail -3 "$work/programs-run.log"; return 1; }
}
check "the run looked for pinreport and ran none of the planted ones" answer_not_planted

wineserver -k 2>/dev/null || true
say "wine_planted: $passed passed, $failed failed"
echo "wine_planted: $passed passed, $failed failed"
((failed == 0))
