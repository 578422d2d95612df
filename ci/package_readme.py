#!/usr/bin/env python3
"""The Windows zip's README, run as written: every command of its ```bat blocks, from a fresh
unzip, under Wine (ci/wine_double.sh calls this with the test-double driver in the prefix).

    ci/package_readme.py --wine WINE --archive ZIP --double CONF [--work DIR]

Reads README.md from the unzipped package (not from the repository), replaces VERSION with the
zip's version and takes each line in turn from the folder the zip was unpacked in:
  - `cd DIR`: the folder must exist; the next commands run there;
  - `pinbench ...`: run verbatim through Wine's cmd (`wine cmd /c LINE`, so cmd finds
    pinbench.exe as a user's cmd does), with PINBENCH_DRIVER_DOUBLE=CONF; its exit code and
    output are checked against EXPECTED, which must know every pinbench command the README has;
  - `... -m pip install WHEEL`: Wine has no Windows Python, so it is not run; the wheel must be
    in the folder the README's `cd` leads to;
  - `%PINREPORT% ARGS`: run with this Python's pinreport on the same files (the zip's wheel's
    code, from reports/), exit code 0-3 (a verdict) and an answer printed;
  - `py -3 -m venv ...`, `set NAME=...`: not run (Windows Python, cmd's own state); named.
Any other line fails the check: a new command in the README needs its expectation here.
Prints one line per command; exit 0 when every command did what was expected, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```bat\n(.*?)^```", flags=re.M | re.S)


def results(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def check_doctor(cwd: Path, output: str) -> list[str]:
    problems = []
    if "PASS: every control passed" not in output:
        problems.append("no 'PASS: every control passed'")
    match = re.search(r"nvml library\s+(.*)", output)
    if not match or not match.group(1).lower().endswith("\\system32\\nvml.dll"):
        problems.append(f"NVML not loaded from System32: {match.group(1) if match else 'no nvml line'}")
    # The bundle is written only when asked for (--bundle): nothing is left in the user's folder.
    if (cwd / "pinbench-doctor.json").exists():
        problems.append("pinbench-doctor.json written without --bundle")
    return problems


def check_run(out: str, backend: str) -> Callable[[Path, str], list[str]]:
    def check(cwd: Path, output: str) -> list[str]:
        path = cwd / out
        if not path.is_file():
            return [f"no {out}"]
        doc = results(path)
        problems = []
        if doc.get("backend") != backend or not doc.get("complete"):
            problems.append(f"backend {doc.get('backend')}, complete {doc.get('complete')}")
        bad = [f"{r['id']}: {r['status']}" for r in doc["runs"] if r["status"] not in ("ok", "waived")]
        problems += bad[:5]
        # Without pinreport (Wine has no Python), the hint names the wheel in the package's folder.
        wheels = sorted(p.name for p in cwd.glob("pinreport-*.whl"))
        hint = re.search(r"pinreport not found .*py -3 -m pip install \"([^\"]+)\"", output)
        if not hint or not wheels or not hint.group(1).endswith("\\" + wheels[0]):
            problems.append(f"the pinreport hint does not name the package's wheel {wheels}: {hint and hint.group(0)}")
        return problems

    return check


# Each pinbench command the README may hold: its exit code and what its output must show.
EXPECTED: list[tuple[re.Pattern[str], int, Callable[[Path, str], list[str]]]] = [
    (re.compile(r"pinbench doctor"), 0, check_doctor),
    (re.compile(r"pinbench run scenarios\\quick\.yaml -o out\\quick\.json"), 0, check_run("out/quick.json", "cuda")),
    (
        re.compile(
            r"pinbench run --backend replay --from results\\h200-smoke\.json "
            r"--script scenarios\\replay\\relabel-demo\.yaml -o out\\replay\.json"
        ),
        0,
        check_run("out/replay.json", "replay"),
    ),
]
NOT_RUN = (
    (re.compile(r"py -3 -m venv "), "needs Windows Python"),
    (re.compile(r"set \w+="), "cmd's own state"),
)
PIP_INSTALL = re.compile(r"\S*python(\.exe)? -m pip install (\S+\.whl)$")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--wine", required=True)
    parser.add_argument("--archive", type=Path, required=True)
    parser.add_argument("--double", required=True, help="the test double's script, as a Windows path")
    parser.add_argument("--work", type=Path, help="where to unzip (default: a new temporary folder)")
    args = parser.parse_args(argv)
    version = re.fullmatch(r"pinbench-(.+)-windows-x64\.zip", args.archive.name)
    if not version:
        print(f"package_readme: {args.archive.name} is not a Windows zip's name", file=sys.stderr)
        return 2
    # Outside the checkout: pinbench.exe looks upward for a checkout's .venv (cli/answer.cpp).
    work = args.work or Path(tempfile.mkdtemp(prefix="pinbench-readme-"))
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    with zipfile.ZipFile(args.archive) as zf:
        zf.extractall(work)
    (top,) = [p for p in work.iterdir() if p.is_dir()]
    lines = [
        line.strip().replace("VERSION", version.group(1))
        for block in FENCE.findall((top / "README.md").read_text(encoding="utf-8"))
        for line in block.splitlines()
        if line.strip()
    ]
    env = {**os.environ, "PINBENCH_DRIVER_DOUBLE": args.double}
    cwd, failed, ran = work, 0, 0

    def fail(line: str, why: str) -> None:
        nonlocal failed
        failed += 1
        print(f"package_readme: FAILED {line}: {why}")

    for line in lines:
        if line.startswith("cd "):
            target = cwd / line[3:].strip().replace("\\", "/")
            if not target.is_dir():
                fail(line, "no such folder in the unzipped package")
                break
            cwd = target
            print(f"package_readme: {line}")
        elif line.startswith("pinbench "):
            known = [(rc, check) for pattern, rc, check in EXPECTED if pattern.fullmatch(line)]
            if not known:
                fail(line, "a pinbench command this test does not know (add it to EXPECTED)")
                continue
            ((want, check),) = known
            done = subprocess.run(
                [args.wine, "cmd", "/c", line],
                cwd=cwd,
                env=env,
                capture_output=True,
                text=True,
                errors="replace",
                timeout=1200,
            )
            output = done.stdout + done.stderr
            ran += 1
            problems = ([f"exit {done.returncode}, expected {want}"] if done.returncode != want else []) + check(
                cwd, output
            )
            if problems:
                fail(line, "; ".join(problems) + "\n" + output[-3000:])
            else:
                print(f"package_readme: ok (exit {done.returncode}): {line}")
        elif match := PIP_INSTALL.search(line):
            if (cwd / match.group(2)).is_file():
                print(f"package_readme: not run (needs Windows Python), its wheel is there: {line}")
            else:
                fail(line, f"{match.group(2)} is not in {cwd.name} (the folder the README's cd leads to)")
        elif line.startswith("%PINREPORT% "):
            words = [w.replace("\\", "/") for w in line.split()[1:]]
            done = subprocess.run(
                [sys.executable, "-m", "pinreport", *words],
                cwd=cwd,
                env={**env, "PYTHONPATH": str(ROOT / "reports")},
                capture_output=True,
                text=True,
            )
            ran += 1
            if done.returncode > 3 or not done.stdout.strip():
                fail(line, f"exit {done.returncode}\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
            else:
                print(f"package_readme: ok (exit {done.returncode}, this Python's pinreport): {line}")
        elif reason := next((why for pattern, why in NOT_RUN if pattern.match(line)), None):
            print(f"package_readme: not run ({reason}): {line}")
        else:
            fail(line, "a command this test does not know")
    print(f"package_readme: {ran} commands run, {failed} failed, of {len(lines)} lines")
    if failed or not ran:
        print(f"package_readme: the unzipped package and its outputs are kept in {work}")
        return 1
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
