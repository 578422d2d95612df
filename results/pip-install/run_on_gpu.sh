#!/usr/bin/env bash
# On the GPU machine (no network): `pip install pinbench` from the carried wheels into a fresh
# venv, then, from an empty temporary folder with no checkout on the PATH or sys.path and no
# PINREPORT: pinbench --version / pinreport --version, `pinbench doctor`, and
# `pinbench run <venv>/share/pinbench/scenarios/quick.yaml`, which ends with the answer
# (pinreport summary, found beside pinbench). Writes every command's output, its exit code and
# the machine's record to OUT. README.md here gives the exact calls.
#
#   bash results/pip-install/run_on_gpu.sh [CARRIED] [OUT]
#     CARRIED: what results/pip-install/prepare.sh made (default build/pip-install)
#     OUT:     default $OUT (the device call's) or out/pip-install
#     PYTHON:  the interpreter (default python3)
#     SCENARIO: another scenario file than the installed quick.yaml (a dry run here against the
#              test-double driver, README.md)
# Exit code: pinbench run's (0: the run and its answer), or the first failing step's.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
carried="$(cd "${1:-$root/build/pip-install}" && pwd)" || { echo "run_on_gpu: no ${1:-build/pip-install}: run prepare.sh here first" >&2; exit 2; }
out="${2:-${OUT:-$root/out/pip-install}}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
python="${PYTHON:-python3}"
wheel="$(ls "$carried"/pinbench-*.whl 2>/dev/null | head -1)"
[[ -n $wheel ]] || { echo "run_on_gpu: no pinbench wheel in $carried" >&2; exit 2; }

start=$SECONDS
log="$out/commands.txt"
: >"$log"
say() { printf 'run_on_gpu: [%3ds] %s\n' "$((SECONDS - start))" "$*" | tee -a "$log"; }
step() {  # NAME TIMEOUT COMMAND...: its output in OUT/NAME.out, its exit code in exit_codes.txt
  local name="$1" limit="$2" rc=0 began=$SECONDS
  shift 2
  say "\$ $*   (> $name.out, timeout ${limit}s, in $PWD)"
  timeout "$limit" "$@" >"$out/$name.out" 2>&1 || rc=$?
  echo "$name $rc" >>"$out/exit_codes.txt"
  say "  exit $rc after $((SECONDS - began)) s"
  return "$rc"
}
: >"$out/exit_codes.txt"

# --- the machine ------------------------------------------------------------------------------
{
  date -u
  uname -a
  grep PRETTY_NAME /etc/os-release
  ldd --version | head -1
  "$python" -VV
  "$python" -c 'import torch; print("torch", torch.__version__)' 2>&1 | tail -1
  nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv
} >"$out/machine.txt" 2>&1
say "machine: $(head -4 "$out/machine.txt" | tail -2 | tr '\n' ' ')"
say "wheel: $(basename "$wheel") ($(stat -c %s "$wheel") bytes); carried: $(ls "$carried/wheels" | tr '\n' ' ')"

# --- a fresh venv, the wheel installed from the carried folder only ---------------------------
tmp="$(mktemp -d)"
venv="$tmp/venv"
work="$tmp/work"
mkdir -p "$work"
cd "$work"
install() {  # NAME VENV_ARGS...: a new venv at $venv, pinbench installed into it with no index
  local name="$1" rc=0
  shift
  rm -rf "$venv"
  say "\$ $python -m venv $* $venv; pip install --no-index --find-links $carried/wheels $(basename "$wheel")   (> $name.out)"
  {
    if ! "$python" -m venv "$@" "$venv"; then
      # Ubuntu's python3 without python3-venv has no ensurepip: a venv without pip, and pip run
      # from its carried wheel.
      echo "run_on_gpu: python -m venv failed (no ensurepip?): a venv without pip, pip from its carried wheel"
      "$python" -m venv --without-pip "$@" "$venv" &&
        "$venv/bin/python" "$(ls "$carried"/wheels/pip-*.whl | head -1)/pip" install --no-index \
          --find-links "$carried/wheels" pip
    fi &&
      if [[ -n ${pth_dirs:-} ]]; then
        # The folders where this machine's python finds its numpy and scipy (a user site, which a
        # venv never sees), named in a .pth file of the venv: pip counts what they hold.
        "$venv/bin/python" -c 'import site, sys; open(site.getsitepackages()[0] + "/machine-packages.pth", "w").write(sys.argv[1])' "$pth_dirs"
      fi &&
      env -u PYTHONPATH -u PIP_FIND_LINKS "$venv/bin/python" -m pip install --no-index \
        --find-links "$carried/wheels" "$wheel"
  } >"$out/$name.out" 2>&1 || rc=$?
  echo "$name $rc" >>"$out/exit_codes.txt"
  say "  exit $rc"
  return "$rc"
}
if ! install pip-install; then
  # The carried wheels are for one Python version (prepare.sh): with another, the dependencies
  # this Python already has (torch brings numpy, jinja2) are used, the rest from the folder.
  say "the carried wheels do not fit $("$python" -V 2>&1): again with --system-site-packages"
  if ! install pip-install-system-site --system-site-packages; then
    # A machine whose numpy and scipy sit in a user site (the GPU machine: torch's numpy in
    # ~/.local), which no venv sees: those folders named in the venv, nothing else taken over.
    pth_dirs=$("$python" -c 'import os, numpy, scipy; print("\n".join(sorted({os.path.dirname(os.path.dirname(m.__file__)) for m in (numpy, scipy)})))' 2>/dev/null)
    say "numpy and scipy are in $(echo $pth_dirs): again with those folders named in the venv"
    [[ -n $pth_dirs ]] && install pip-install-machine-packages --system-site-packages ||
      { say "pip install failed: $out/pip-install*.out"; exit 3; }
  fi
fi

# --- the installed commands, from the empty folder, no checkout anywhere ----------------------
# The installed commands by their path; a PATH that holds neither the venv nor a checkout.
clean=(env -u PYTHONPATH -u PINREPORT -u PINBENCH_EXE PATH=/usr/bin:/bin)
step pinbench-version 30 "${clean[@]}" "$venv/bin/pinbench" --version
step pinreport-version 30 "${clean[@]}" "$venv/bin/pinreport" --version
step where 30 "${clean[@]}" "$venv/bin/python" -c 'import pinreport, sys; print(pinreport.__file__); print(*sys.path, sep="\n")'
ls -l "$venv/bin" "$venv/share/pinbench/scenarios" >"$out/installed-files.txt" 2>&1
step doctor 120 "${clean[@]}" "$venv/bin/pinbench" doctor --bundle "$out/doctor.json"
step run 540 "${clean[@]}" "$venv/bin/pinbench" run "${SCENARIO:-$venv/share/pinbench/scenarios/quick.yaml}" -o "$out/quick.json"
status=$?
say "the answer (the end of the run's output):"
sed -n '/^pinbench answer:/,$p' "$out/run.out" | tee -a "$log"
grep -q '^pinbench answer:' "$out/run.out" || { say "NO ANSWER at the end of pinbench run"; ((status)) || status=1; }
rm -rf "$tmp"
say "done: $out (exit $status)"
exit "$status"
