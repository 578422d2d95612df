#!/usr/bin/env python3
"""The Windows zip's README, run as written: every command of its ```bat blocks, from a fresh
unzip, under Wine (ci/wine_double.sh calls this with the test-double driver in the prefix).

    ci/package_readme.py --wine WINE --archive ZIP --double CONF [--work DIR]

Unzips the package into a folder whose path holds a space and accented letters
(`.../Zoë Müller/Téléchargements`, as a user's Downloads folder), reads README.md from there
(not from the repository; a VERSION left in a command fails: package.py spells it out) and
takes each line in turn from the folder the zip was unpacked in:
  - `cd DIR`: the folder must exist; the next commands run there;
  - `pinbench ...`: run verbatim through Wine's cmd (`wine cmd /c LINE`, so cmd finds
    pinbench.exe as a user's cmd does), with PINBENCH_DRIVER_DOUBLE=CONF, Wine's code page 1252
    (LC_ALL=C.UTF-8); its exit code and output are checked against EXPECTED, which must know
    every pinbench command the README has;
  - `"...python.exe" -m pip install ARGS`: CI has no Windows CPython to run under Wine (Debian
    and PyPI carry none, and CI downloads nothing else), so the same ARGS are given to this
    machine's pip as a Windows pip would take them, for every Python the wheelhouse supports
    (`--platform win_amd64 --python-version X --only-binary=:all: --dry-run --target`,
    ci/wheelhouse.py), from the same folder, and must resolve pinreport;
    with no network at all (`unshare -n`) where this machine allows it, which the line says;
  - `"%PINREPORT%" ARGS`: run with this Python's pinreport on the same files (the zip's wheel's
    code, from reports/), exit code 0-3 (a verdict) and an answer printed;
  - `py -3 -m venv ...`, `set "NAME=..."`: not run (Windows Python, cmd's own state); named.
Any other line fails the check: a new command in the README needs its expectation here.
Prints one line per command; exit 0 when every command did what was expected, 1 otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import wheelhouse  # noqa: E402  (ci/wheelhouse.py: the supported Pythons, pip as Windows' would run)

ROOT = Path(__file__).resolve().parent.parent
FENCE = re.compile(r"^```bat\n(.*?)^```", flags=re.M | re.S)
# Where the zip is unpacked: a user's Downloads folder, with a space and accented letters.
DOWNLOADS = Path("Zoë Müller") / "Téléchargements"


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
        # Without pinreport (Wine has no Python), the hint names the package's wheelhouse and the
        # README's section; a pinreport.exe in the current folder is never tried.
        hint = re.search(r'pinreport not found .*install pinreport from "([^"]+)" \(no download\)', output)
        if not hint or not hint.group(1).endswith("\\wheelhouse") or not (cwd / "wheelhouse").is_dir():
            problems.append(f"the pinreport hint does not name the package's wheelhouse: {hint and hint.group(0)}")
        elif 'docs/package-windows.md, "pinreport, offline"' not in output:
            problems.append("the pinreport hint does not name the README's section")
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
    (re.compile(r"py -3 -m venv "), "needs a Windows Python, which CI does not have under Wine"),
    (re.compile(r'set "\w+='), "cmd's own state"),
)
PIP_INSTALL = re.compile(r'^"[^"]*\\python\.exe" -m pip install (.+)$')
PINREPORT = re.compile(r'^"%PINREPORT%" (.+)$')


def cmd_words(text: str) -> list[str]:
    """A cmd command line's words: split at spaces, "..." kept together, backslashes as they are."""
    lexer = shlex.shlex(text, posix=True)
    lexer.whitespace_split = True
    lexer.escape = ""
    return list(lexer)


def offline() -> list[str]:
    """`unshare -n`: no network at all for the command, where this machine lets us."""
    if shutil.which("unshare") and subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode == 0:
        return ["unshare", "-n"]
    return []


def pip_as_windows(args: list[str], cwd: Path) -> list[str]:
    """The README's `pip install ARGS` resolved by this machine's pip as a Windows pip of each
    supported Python would (nothing installed): why it does not resolve pinreport, per Python."""
    problems = []
    for python in wheelhouse.supported_pythons():
        with tempfile.TemporaryDirectory() as tmp:
            report = Path(tmp) / "report.json"
            done = subprocess.run(
                [*offline(), sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
                 "--report", str(report), "--target", str(Path(tmp) / "target"),
                 *wheelhouse.target_args(python), *args],
                cwd=cwd, capture_output=True, text=True, env=wheelhouse.pip_env(),
            )  # fmt: skip
            names = (
                sorted(i["metadata"]["name"].lower() for i in json.loads(report.read_text())["install"])
                if report.is_file()
                else []
            )
        if done.returncode != 0 or "pinreport" not in names:
            problems.append(f"Python {python}: pip exit {done.returncode}, {names}\n{done.stdout}{done.stderr}")
        else:
            print(f"package_readme:   Python {python}, win_amd64: {len(names)} packages from the wheelhouse")
    return problems


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
    # Outside the checkout, in a Downloads folder with a space and accented letters.
    base = args.work or Path(tempfile.mkdtemp(prefix="pinbench-readme-"))
    shutil.rmtree(base, ignore_errors=True)
    work = base / DOWNLOADS
    work.mkdir(parents=True)
    with zipfile.ZipFile(args.archive) as zf:
        zf.extractall(work)
    (top,) = [p for p in work.iterdir() if p.is_dir()]
    lines = [
        line.strip()
        for block in FENCE.findall((top / "README.md").read_text(encoding="utf-8"))
        for line in block.splitlines()
        if line.strip()
    ]
    # Wine reads the Unix names in UTF-8 (code page 1252) and no PINREPORT leaks in.
    env = {k: v for k, v in os.environ.items() if k != "PINREPORT"}
    env.update(PINBENCH_DRIVER_DOUBLE=args.double, LC_ALL="C.UTF-8", LANG="C.UTF-8")
    print(f"package_readme: unzipped into {work}{' (no network for pip: unshare -n)' if offline() else ''}")
    cwd, failed, ran = work, 0, 0

    def fail(line: str, why: str) -> None:
        nonlocal failed
        failed += 1
        print(f"package_readme: FAILED {line}: {why}")

    for line in lines:
        if "VERSION" in line:
            fail(line, "VERSION is not spelled out (ci/package.py writes the zip's version into its README)")
        elif line.startswith("cd "):
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
        elif match := PIP_INSTALL.match(line):
            ran += 1
            print(f"package_readme: {line}\npackage_readme:   (no Windows Python under Wine in CI: resolved")
            print("package_readme:   by this machine's pip as a Windows pip would, with no index)")
            if problems := pip_as_windows(cmd_words(match.group(1)), cwd):
                fail(line, "\n".join(problems))
            else:
                print(f"package_readme: ok (every supported Python, no index): {line}")
        elif match := PINREPORT.match(line):
            words = [w.replace("\\", "/") for w in cmd_words(match.group(1))]
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
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
