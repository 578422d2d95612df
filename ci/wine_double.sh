#!/usr/bin/env bash
# The Windows binary under Wine against the Windows build of the test-double driver and NVML
# (docs/test-double.md): called by ci/check_windows.sh after the CPU tests, with WINEPREFIX set to
# that run's own copy of the prefix. It copies the double's nvcuda.dll and nvml.dll into that
# copy's System32 (where the harness loads them from, and only there) and runs:
#   1. the NVML wrapper's device tests (NvmlDevice.*, which skip without NVML) against the double;
#   2. pinbench.exe doctor (exit 0, the double's name in its output);
#   3. every kind of harness/tests/doubles/scenarios/every_kind.yaml with --backend cuda;
#   4. a run killed mid-way (TerminateProcess-like: SIGKILL of its Wine process) and its
#      `run --resume`; then one stopped by Ctrl-C (SIGINT, which Wine turns into CTRL_C_EVENT
#      for the console control handler): exit 130, `interrupted`, and its `run --resume`;
#   5. the overhead runs with NVML's per-process memory scripted "not available" (as WDDM
#      reports it): nvml.0.process_used must be missing with a reason, the device figures there;
#   6. pinbench.exe trace of a small program (harness/tests/doubles/traced_program.cpp): the
#      double loads the injection DLL at cuInit and calls the CUPTI double's subscriber around its
#      pinning calls; the trace must pass pinreport's strict reader and hold the calls the program
#      notes it made. every_kind's command kind (3.) traces the same program.
#   7. pinbench.exe budget against a pin limit whose failure poisons the process (docs/budget.md),
#      its document read by pinreport's strict reader; then without --cap: the cap above Windows'
#      limit for graphics.
#   8. doctor from a folder holding planted copies of nvml.dll and nvcuda.dll: System32's are
#      named, and with System32's gone none is loaded and the reason is printed;
#   9. the Windows zip (ci/package.py) unzipped afresh and its README's commands run as written
#      (ci/package_readme.py).
# Every results file is read back by pinbench.exe's strict reader (`results upgrade`) and its
# statuses checked here. Prints "wine_double: N passed, N failed" and exits 1 when a check failed.
#
# Usage: ci/wine_double.sh WINE BUILD   (BUILD: build/mingw)
#   PINBENCH_PYTHON  the Python with pinreport's dependencies, for 6. (default .venv/bin/python)
set -euo pipefail

wine="$1"
build="$(cd "$2" && pwd)"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$root/ci/cache_dirs.sh"
. "$root/ci/wine_checks.sh" wine_double

double="$build/harness/tests/doubles/driver/current"
double_into_system32 "$double"
work="$build/wine-double"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
# pinbench trace's parts: the injection DLL beside pinbench.exe, the CUPTI double it loads through
# PINBENCH_CUPTI_LIBRARY, the program to trace (in a folder of its own: it loads nvcuda.dll from
# System32, as the injection does). All need the CUPTI and crt headers at build time.
injection="$build/harness/pinbench_trace_inject.dll"
cupti="$build/harness/tests/doubles/driver/cupti/cupti64_test_double.dll"
traced_program="$build/harness/tests/doubles/driver/program/traced_program.exe"
export PINBENCH_CUPTI_LIBRARY
PINBENCH_CUPTI_LIBRARY="$(windows_path "$cupti")"
# The command kind's `true` is no Windows program: it traces the small program instead.
python3 - "$root/harness/tests/doubles/scenarios/every_kind.yaml" "$(windows_path "$traced_program")" <<'EOF' >every_kind.yaml
import json
import sys

text = open(sys.argv[1]).read()
if 'command: ["true"]' not in text:
    sys.exit('wine_double: every_kind.yaml has no command: ["true"] to replace')
print(text.replace('command: ["true"]', f"command: [{json.dumps(sys.argv[2])}]"), end="")
EOF
pinbench=("$wine" "$build/harness/pinbench.exe")

# A script per use, each with its own state file (the script's name + ".state").
priced='devices = 2
total_memory = 512MiB
reserved_memory = 32MiB
context_cost = 16MiB
pin_cost_per_gib.cuMemHostAlloc = 2MiB
pin_cost_per_gib.cuMemHostAlloc:2 = 8MiB
pin_cost_per_gib.cuMemHostRegister_v2 = 1MiB
pin_cost_per_gib.cuMemCreate = 4MiB
pin_cost_per_gib.cuMemAllocFromPoolAsync = 16MiB'
script() {  # NAME TEXT: writes NAME.conf, prints its Windows path
  printf '%s\n' "$2" >"$work/$1.conf"
  windows_path "$work/$1.conf"
}

# Runs pinbench.exe ARGS with the script NAME; its output in NAME.log; returns its exit code.
with_double() {  # NAME ARGS...
  local name="$1"
  shift
  PINBENCH_DRIVER_DOUBLE="$(windows_path "$work/$name.conf")" "${pinbench[@]}" "$@" >"$work/$name.log" 2>&1
}

# Checks a results file: pinbench.exe's strict reader accepts it, and python's checks (below).
results_ok() {  # FILE PYTHON_CHECK
  "${pinbench[@]}" results upgrade "$1" -o "$1.upgraded" >"$1.upgrade.log" 2>&1 ||
    { cat "$1.upgrade.log"; return 1; }
  python3 - "$1" "$2" <<'EOF'
import json
import sys

doc = json.load(open(sys.argv[1]))
runs = doc["runs"]
statuses = {r["id"]: (r["status"], r.get("reason", "")) for r in runs}
problems = []
exec(sys.argv[2])
for p in problems:
    print(f"wine_double: {sys.argv[1]}: {p}")
sys.exit(1 if problems else 0)
EOF
}

# --- 1. The NVML wrapper's device tests against the double ------------------------------------
script nvml-device 'devices = 1
total_memory = 1GiB
context_cost = 16MiB' >/dev/null
say "NVML device tests against the double's nvml.dll"
nvml_tests() {
  PINBENCH_DRIVER_DOUBLE="$(windows_path "$work/nvml-device.conf")" "$wine" "$build/harness/tests/pinbench_cpu_tests.exe" \
    --gtest_filter='NvmlDevice.*' --gtest_output=xml:nvml-device.xml --gtest_brief=1 >nvml-device.log 2>&1 ||
    { cat nvml-device.log; return 1; }
  python3 - <<'EOF'
import sys
import xml.etree.ElementTree as ET

cases = list(ET.parse("nvml-device.xml").getroot().iter("testcase"))
skipped = [c.get("name") for c in cases if c.get("result") == "skipped" or c.find("skipped") is not None]
print(f"wine_double: NvmlDevice: {len(cases) - len(skipped)} of {len(cases)} passed against the double")
sys.exit(1 if skipped or not cases else 0)  # a skip: the double's NVML was not loaded
EOF
}
check "NvmlDevice.* against the double" nvml_tests

# --- 2. doctor --------------------------------------------------------------------------------
# Host pinning costs nothing here: on Windows the positive_host control judges only DXGI's
# non-local group, which the double has not, so it is NOT APPLICABLE; with a cost, its disturbance
# check saw the control's own pin cost as an idle move in 2 of 8 doctors under Wine (results/test-double/README.md).
script doctor "$(grep -v '^pin_cost_per_gib.cuMemHostAlloc =' <<<"$priced")" >/dev/null
say "pinbench.exe doctor"
doctor() {
  with_double doctor doctor --bundle doctor-bundle.json --control-size 128MiB ||
    { tail -20 doctor.log; return 1; }
  grep -q 'pinbench test-double GPU' doctor.log || { echo "doctor did not name the double's device"; return 1; }
}
check "doctor against the double" doctor

# --- 3. every kind ------------------------------------------------------------------------------
script every-kind "$priced" >/dev/null
say "pinbench.exe run every_kind.yaml --backend cuda"
every_kind() {
  with_double every-kind run every_kind.yaml --backend cuda -o every-kind.json --no-summary \
    --control-size 16MiB || { tail -20 every-kind.log; return 1; }
  results_ok every-kind.json '
kinds = {r["plan"]["kind"] for r in runs}
if len(kinds) != 10:
    problems.append(f"{len(kinds)} kinds ran, not 10: {sorted(kinds)}")
if not doc.get("complete"):
    problems.append("not complete")
problems += [f"{rid}: {s} ({why}), expected ok" for rid, (s, why) in statuses.items() if s != "ok"]
# the command kind traced the small program: its 4 + 2 MiB cuMemHostAlloc and 3 MiB registration
for r in runs:
    if r["plan"]["kind"] == "command":
        peak = r.get("metrics", {}).get("command.peak_pinned_bytes", {}).get("median")
        if peak != 9 * 2**20:
            problems.append(f"{r['id']}: command.peak_pinned_bytes {peak}, expected {9 * 2**20}")
print(f"wine_double: every_kind: {len(runs)} runs of {len(kinds)} kinds")
'
}
check "every kind against the double" every_kind

# --- 4. a run killed mid-way, then resumed --------------------------------------------------------
script cancelled "$priced" >/dev/null
say "a run killed after its first run is written, then --resume"
cancel_and_resume() {
  PINBENCH_DRIVER_DOUBLE="$(windows_path "$work/cancelled.conf")" "${pinbench[@]}" run every_kind.yaml \
    --backend cuda -o cancelled.json --no-summary --only 'double-overhead/*' --control-size 16MiB \
    >cancelled.log 2>&1 &
  local pid=$! runs=0 until=$((SECONDS + 30))
  while ((runs < 1 && SECONDS < until)) && kill -0 "$pid" 2>/dev/null; do
    sleep 0.1
    runs="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1])).get("runs", [])))' cancelled.json 2>/dev/null || echo 0)"
  done
  kill -KILL "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  ((runs >= 1)) || { echo "no run was written (30 s at most)"; tail -20 cancelled.log; return 1; }
  results_ok cancelled.json '
if doc.get("complete"):
    problems.append("the run ended before it was killed: nothing to resume")
if not 1 <= len(runs) < 6:
    problems.append(f"{len(runs)} runs in the partial file")
print(f"wine_double: killed with {len(runs)} of 6 runs written")
' || return 1
  with_double cancelled run --resume cancelled.json --no-summary --control-size 16MiB ||
    { tail -20 cancelled.log; return 1; }
  results_ok cancelled.json '
if not doc.get("complete"):
    problems.append("not complete after --resume")
if len(runs) != 6:
    problems.append(f"{len(runs)} runs after --resume, expected 6")
problems += [f"{rid}: {s} ({why})" for rid, (s, why) in statuses.items() if s != "ok"]
'
}
check "a killed run and its --resume" cancel_and_resume

# --- 4b. Ctrl-C: SIGINT reaches the console control handler (CTRL_C_EVENT) under Wine ------------
# Wine turns a SIGINT to the process into CTRL_C_EVENT for SetConsoleCtrlHandler's handler, as
# a Ctrl-C in its console does on Windows: the run ends its child, writes what it finished with
# `interrupted`, exits 130; --resume completes it.
script ctrl-c "$priced" >/dev/null
say "a run stopped by Ctrl-C (SIGINT: CTRL_C_EVENT) after its first run is written, then --resume"
ctrl_c_and_resume() {
  PINBENCH_DRIVER_DOUBLE="$(windows_path "$work/ctrl-c.conf")" "${pinbench[@]}" run every_kind.yaml \
    --backend cuda -o ctrl-c.json --no-summary --only 'double-overhead/*' --control-size 16MiB \
    >ctrl-c.log 2>&1 &
  local pid=$! runs=0 rc=0 until=$((SECONDS + 30))
  while ((runs < 1 && SECONDS < until)) && kill -0 "$pid" 2>/dev/null; do
    sleep 0.1
    runs="$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1])).get("runs", [])))' ctrl-c.json 2>/dev/null || echo 0)"
  done
  kill -INT "$pid" 2>/dev/null || true
  wait "$pid" || rc=$?
  ((runs >= 1)) || { echo "no run was written (30 s at most)"; tail -20 ctrl-c.log; return 1; }
  ((rc == 130)) || { echo "exit $rc after Ctrl-C, expected 130"; tail -20 ctrl-c.log; return 1; }
  results_ok ctrl-c.json '
interrupted = doc.get("interrupted") or {}
if doc.get("complete"):
    problems.append("complete after Ctrl-C")
if interrupted.get("signal") != "CTRL_C":
    problems.append(f"interrupted: {interrupted}, expected the signal CTRL_C")
if not 1 <= len(runs) < 6:
    problems.append(f"{len(runs)} runs in the partial file")
print(f"wine_double: Ctrl-C: exit 130 with {len(runs)} of 6 runs written, interrupted {interrupted}")
' || return 1
  with_double ctrl-c run --resume ctrl-c.json --no-summary --control-size 16MiB || { tail -20 ctrl-c.log; return 1; }
  results_ok ctrl-c.json '
complete = doc.get("complete")
if not complete or len(runs) != 6:
    problems.append(f"complete {complete}, {len(runs)} runs after --resume, expected 6")
problems += [f"{rid}: {s} ({why})" for rid, (s, why) in statuses.items() if s != "ok"]
'
}
check "a run stopped by Ctrl-C (exit 130) and its --resume" ctrl_c_and_resume

# --- 5. NVML's per-process memory "not available", as scripted (WDDM reports it so) ---------------
script no-process-memory "$priced
nvml_process_memory = not_available" >/dev/null
say "per-process NVML memory scripted not available"
no_process_memory() {
  with_double no-process-memory run every_kind.yaml --backend cuda -o no-process-memory.json --no-summary \
    --only 'double-overhead/cudaMallocHost/*' --control-size 16MiB || { tail -20 no-process-memory.log; return 1; }
  results_ok no-process-memory.json '
(run,) = runs
metrics = run.get("metrics", {})
status, reason = run["status"], run.get("reason")
if status != "ok":
    problems.append(f"status {status} ({reason})")
if any(name.endswith("nvml.0.process_used") for name in metrics):
    problems.append("a process_used metric although NVML gives none")
if "cost.after_alloc.nvml.0.used" not in metrics:
    problems.append("no device-level nvml.0.used metric")
# every snapshot of every repeat: the process figure missing with the reason NVML gave, never a number
readings = [s["readings"] for r in run["repeats"] for s in r["snapshots"]]
missing = [r.get("nvml.0.process_used") for r in readings]
if not readings or not all(isinstance(m, dict) and m.get("unavailable") for m in missing):
    problems.append(f"nvml.0.process_used is not unavailable with a reason in every snapshot: {missing}")
else:
    print(f"wine_double: nvml.0.process_used in {len(missing)} snapshots: {missing[0]}")
'
}
check "per-process NVML memory not available" no_process_memory

# --- 6. pinbench trace of a small program ----------------------------------------------------------
script trace "$priced" >/dev/null
say "pinbench.exe trace of a small program, with the CUPTI double"
trace_program() {
  local f
  for f in "$injection" "$cupti" "$traced_program"; do
    [[ -f $f ]] || { echo "$f was not built (it needs the CUPTI headers and crt/host_defines.h: ci/setup-debian.sh)"; return 1; }
  done
  with_double trace trace -o trace.json --stack 4 -- "$(windows_path "$traced_program")" ||
    { tail -20 trace.log; return 1; }
  grep -q '^traced_program: 3 pinning calls, all freed' trace.log ||
    { echo "the program's own output did not pass through"; tail -20 trace.log; return 1; }
  local python="${PINBENCH_PYTHON:-$root/.venv/bin/python}"
  PYTHONPATH="$root/reports" "$python" - trace.json <<'EOF'
import json
import sys

from pinreport.readers.trace import load_trace

load_trace(sys.argv[1])  # the strict reader: bounded, strict JSON, trace.schema.json
with open(sys.argv[1], encoding="utf-8") as f:
    doc = json.load(f)  # then every field as written, untyped
problems = []
tracing, calls, pinned = doc["tracing"], doc["calls"], doc["pinned"]
if doc["status"]["kind"] != "exited" or doc["status"]["exit_code"] != 0:
    problems.append(f"status {doc['status']}")
if tracing["state"] != "on" or [p["error"] for p in tracing["processes"]] != [""]:
    problems.append(f"tracing {tracing['state']}: {tracing['message']} {tracing['processes']}")
elif not tracing["processes"][0]["cupti"].endswith("cupti64_test_double.dll"):
    problems.append(f"CUPTI loaded from {tracing['processes'][0]['cupti']}, not the double")
# what the program says it asked and got, call for call
made = doc["notes"].get("traced_program", [])
apis = [c["api"] for c in calls]
want = ["cuMemHostAlloc", "cuMemHostAlloc", "cuMemHostRegister_v2", "cuMemHostUnregister", "cuMemFreeHost", "cuMemFreeHost"]
if apis != want or len(made) != 3:
    problems.append(f"calls {apis}, expected {want}; the program noted {made}")
else:
    for call, m in zip(calls, made):
        got = {k: call[k] for k in ("api", "bytes", "flags", "address")}
        if got != m or call["result_name"] != "CUDA_SUCCESS" or call["device"] != 0:
            problems.append(f"traced {call}, the program made {m}")
    freed = [c["address"] for c in calls[3:]]
    if freed != [made[2]["address"], made[0]["address"], made[1]["address"]]:
        problems.append(f"released {freed}, the program's addresses {[m['address'] for m in made]}")
    if {c["pid"] for c in calls} != {tracing["processes"][0]["pid"]}:
        problems.append("a call from a process that did not subscribe")
if pinned["peak_bytes"] != 9 * 2**20 or pinned["unmatched_releases"] != 0:
    problems.append(f"peak {pinned['peak_bytes']} B, expected {9 * 2**20}; {pinned['unmatched_releases']} unmatched releases")
if pinned["peak_by_family"] != {"host_alloc": 6 * 2**20, "host_register": 3 * 2**20}:
    problems.append(f"peak by family {pinned['peak_by_family']}")
# the stack walk: the injection's, CUPTI's and the driver's frames dropped, the program's kept
sites = {h["site"] for h in pinned["at_peak"]}
if not sites or not all(s.startswith("traced_program.exe+0x") for s in sites):
    problems.append(f"call sites {sites}, expected the program's frames")
if not doc["device"]["sampled"]:
    problems.append(f"NVML (the double's) not sampled: {doc['device']['why']}")
for p in problems:
    print(f"wine_double: trace.json: {p}")
if not problems:
    print(f"wine_double: trace: {len(calls)} calls as the program made them, peak {pinned['peak_bytes']} B")
sys.exit(1 if problems else 0)
EOF
}
check "pinbench trace of a small program" trace_program

# --- 7. pinbench budget: a 40 MiB limit whose failure poisons the process (docs/budget.md) -----------
script budget "$priced
pin_limit = 40MiB
poison_after_failure = on" >/dev/null
say "pinbench.exe budget against a poisoning limit"
budget_poisons() {
  with_double budget budget -o budget.json --chunk 8MiB --cap 1GiB --time-limit 60 || { tail -20 budget.log; return 1; }
  local python="${PINBENCH_PYTHON:-$root/.venv/bin/python}"
  PYTHONPATH="$root/reports" "$python" - budget.json <<'EOF'
import json
import sys

from pinreport.readers.budget import load_budget

b = load_budget(sys.argv[1])  # the strict reader: bounded, strict JSON, budget.schema.json
with open(sys.argv[1], encoding="utf-8") as f:
    host = json.load(f)["host"]  # a field the typed reader does not keep
problems = []
for f in b.families:
    got = (f.status, f.held_at_once, f.largest_single, f.failure, f.safe_budget)
    if got != ("ok", 40 << 20, 32 << 20, "poisons", 32 << 20):
        problems.append(f"{f.family}: {got}")
if host.get("windows_graphics_limit") is None:
    problems.append("no Windows graphics limit beside the measured total")
for p in problems:
    print(f"wine_double: budget.json: {p}")
sys.exit(1 if problems else 0)
EOF
}
check "pinbench budget against a poisoning limit" budget_poisons

# Without --cap on Windows the cap lies above the OS's limit for graphics (the larger of RAM/2 and
# the DXGI non-local budget, plus 25%, in whole chunks), so the default search reaches it; the
# limits of the process are in the document (version 2).
budget_default_cap() {
  with_double budget budget -o budget-default-cap.json --held-only --chunk 8MiB --time-limit 30 || { tail -20 budget.log; return 1; }
  local python="${PINBENCH_PYTHON:-$root/.venv/bin/python}"
  PYTHONPATH="$root/reports" "$python" - budget-default-cap.json <<'EOF'
import json
import math
import sys
from pathlib import Path

from pinreport.readers.budget import load_budget

b = load_budget(sys.argv[1])  # the typed document (and the schema's check)
d = json.loads(Path(sys.argv[1]).read_text(encoding="utf-8"))  # the fields no reader types
problems = []
ram, chunk = d["host"]["ram_total"], d["options"]["chunk"]
os_limit = max(ram // 2, 64 * 1000 * 1000)  # the DXGI budget is not read under Wine (no such adapter)
want = max(chunk, math.ceil(int(os_limit * 1.25) / chunk) * chunk)
if d["options"]["cap"] != want:
    problems.append(f"cap {d['options']['cap']}, not {want} (RAM {ram})")
if not d["options"].get("cap_basis", "").startswith("Windows' limit for graphics"):
    problems.append(f"cap_basis {d['options'].get('cap_basis')!r}")
if d["version"] != 2 or not any(limit["kind"] == "host" for limit in d["limits"]["read"]):
    problems.append(f"version {d['version']}, limits {d.get('limits')}")
for f in b.families:
    if (f.status, f.held_at_once) != ("ok", 40 << 20):
        problems.append(f"{f.family}: {f.status}, held {f.held_at_once}")
for p in problems:
    print(f"wine_double: budget-default-cap.json: {p}")
sys.exit(1 if problems else 0)
EOF
}
check "pinbench budget's default cap above Windows' limit for graphics" budget_default_cap

# --- 8. DLLs planted in the working folder are never loaded ----------------------------------------
# Copies of the double's nvml.dll and nvcuda.dll in the folder pinbench runs from: doctor names
# System32's NVML; with System32's copy gone it loads none and says why, never the planted one.
script planted "$(grep -v '^pin_cost_per_gib.cuMemHostAlloc =' <<<"$priced")" >/dev/null
say "nvml.dll and nvcuda.dll planted in the working folder"
planted_dlls() {
  local dir="$work/planted" sys32="$WINEPREFIX/drive_c/windows/system32" status=0 line
  mkdir -p "$dir"
  cp "$double/nvml.dll" "$double/nvcuda.dll" "$dir/"
  planted_doctor() {  # LOG: doctor from the planted folder; the "nvml library" line on stdout
    (cd "$dir" && PINBENCH_DRIVER_DOUBLE="$(windows_path "$work/planted.conf")" "${pinbench[@]}" doctor \
      --bundle bundle.json --control-size 128MiB >"$work/$1" 2>&1) || true
    grep -a 'nvml library' "$work/$1" || echo "(no nvml library line)"
  }
  line="$(planted_doctor planted-system32.log)"
  [[ ${line,,} == *'\system32\nvml.dll'* ]] || { echo "System32 has NVML: doctor says '$line'"; status=1; }
  mv "$sys32/nvml.dll" "$sys32/nvml.dll.away"
  line="$(planted_doctor planted-no-nvml.log)"
  mv "$sys32/nvml.dll.away" "$sys32/nvml.dll"
  [[ $line == *'not loaded'*'nvml.dll (System32 only)'* ]] ||
    { echo "no NVML in System32: doctor says '$line', not that it loaded none and why"; status=1; }
  mv "$sys32/nvcuda.dll" "$sys32/nvcuda.dll.away"
  planted_doctor planted-no-nvcuda.log >/dev/null
  mv "$sys32/nvcuda.dll.away" "$sys32/nvcuda.dll"
  grep -aq 'nvcuda.dll not found: nvcuda.dll (System32 only)' "$work/planted-no-nvcuda.log" ||
    { echo "no nvcuda.dll in System32: doctor did not say so"; tail -5 "$work/planted-no-nvcuda.log"; status=1; }
  ((status == 0)) && echo "wine_double: planted DLLs: System32's NVML named; none loaded from the working folder"
  return "$status"
}
check "nvml.dll / nvcuda.dll planted in the working folder never loaded" planted_dlls

# --- 9. The zip's README, command by command, from a fresh unzip ------------------------------------
script readme 'devices = 1
total_memory = 2GiB
reserved_memory = 32MiB
context_cost = 16MiB' >/dev/null
say "the Windows zip's README, run as written (ci/package_readme.py)"
readme_commands() {
  local python="${PINBENCH_PYTHON:-$root/.venv/bin/python}" zip
  rm -rf "$work/package"
  "$python" "$root/ci/package.py" windows --build "$build" --out "$work/package" >package.log 2>&1 ||
    { tail -20 package.log; return 1; }
  zip="$(ls "$work"/package/pinbench-*-windows-x64.zip)"
  "$python" "$root/ci/package_readme.py" --wine "$wine" --archive "$zip" --double "$(windows_path "$work/readme.conf")"
}
check "the zip's README commands, verbatim" readme_commands

wineserver -k 2>/dev/null || true
say "wine_double: $passed passed, $failed failed"
echo "wine_double: $passed passed, $failed failed"
((failed == 0))
