#!/usr/bin/env python3
"""pinreport's dependencies for Windows, pinned with hashes, and the wheelhouse the Windows zip carries.

    ci/wheelhouse.py lock                 rewrite ci/wheelhouse.lock from PyPI (on purpose only)
    ci/wheelhouse.py check-lock           the lock answers reports/pyproject.toml (offline)
    ci/wheelhouse.py build --out DIR [--pinreport WHEEL]   the locked wheels, hashes checked
    ci/wheelhouse.py resolve DIR          pip resolves `pinreport` from DIR with no index

The lock (ci/wheelhouse.lock) is a pip requirements file: every package pinreport needs on
win_amd64, for each supported Python, at one version with the sha256 of its wheel. Those
Pythons are the `Programming Language :: Python :: 3.X` classifiers of reports/pyproject.toml;
what pinreport needs is that file's `dependencies`. `lock` asks pip's resolver (`pip install
--dry-run --report`, nothing downloaded) and rewrites the file; nothing else changes it, so a
new release of numpy reaches users only when someone runs `lock` and commits the diff.

`build` downloads exactly the locked files (`pip download --require-hashes`: a file whose hash
differs is refused), into the user's cache directory keyed by the lock's hash
(${PINBENCH_CACHE:-~/.cache/pinbench}/wheelhouse/KEY, safe to delete), then copies them and the
pinreport wheel into DIR. ci/package.py puts DIR into the Windows zip as `wheelhouse\\`, and the
zip's README installs pinreport from it with `--no-index --find-links` (docs/package-windows.md).

`resolve` is that README line for every supported Python, run on Linux with pip's
`--platform win_amd64 --only-binary=:all: --no-index --target`: CI has no Windows CPython to run
under Wine (Debian and PyPI carry none), so this is how CI shows that the wheelhouse alone
installs pinreport.

Exit codes: 0 done; 1 the lock does not answer pyproject.toml, a hash or a resolution failed;
2 bad usage, or no network for `lock` / a first `build`.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = ROOT / "reports" / "pyproject.toml"
LOCK = ROOT / "ci" / "wheelhouse.lock"
PLATFORM = "win_amd64"
CLASSIFIER = re.compile(r"^Programming Language :: Python :: (3\.\d+)$")
PINNED = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)\s*(?:;\s*(.*?))?\s*\\?$")
HASH = re.compile(r"--hash=sha256:([0-9a-f]{64})")


def project() -> dict:
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]


def supported_pythons() -> list[str]:
    """The Python versions pinreport supports on Windows: its classifiers, oldest first."""
    found = [m.group(1) for c in project().get("classifiers", []) if (m := CLASSIFIER.match(c))]
    return sorted(found, key=lambda v: tuple(int(p) for p in v.split(".")))


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pip_env() -> dict[str, str]:
    """pip without the user's configuration: no extra index, no find-links of their own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    env["PIP_CONFIG_FILE"] = os.devnull
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
    return env


def target_args(python: str) -> list[str]:
    """What makes pip choose as a Windows CPython of that version would."""
    return ["--platform", PLATFORM, "--python-version", python, "--implementation", "cp", "--only-binary=:all:"]


def resolve_report(python: str, requirements: list[str], extra: list[str]) -> tuple[int, dict, str]:
    """pip's resolution for win_amd64 and `python` (nothing installed), its report and output."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed", "--quiet",
             "--report", str(report), "--target", str(Path(tmp) / "target"),
             *target_args(python), *extra, *requirements],
            capture_output=True, text=True, env=pip_env(),
        )  # fmt: skip
        doc = json.loads(report.read_text(encoding="utf-8")) if report.is_file() else {}
    return done.returncode, doc, done.stdout + done.stderr


def lock() -> int:
    pythons = supported_pythons()
    if not pythons:
        print(f"wheelhouse: no 'Programming Language :: Python :: 3.X' classifier in {PYPROJECT}", file=sys.stderr)
        return 1
    # name -> version -> (pythons, {sha256})
    chosen: dict[str, dict[str, tuple[list[str], set[str]]]] = defaultdict(dict)
    for python in pythons:
        rc, doc, output = resolve_report(python, project()["dependencies"], [])
        if rc != 0:
            print(f"wheelhouse: pip could not resolve for Python {python}:\n{output}", file=sys.stderr)
            return 2
        for item in doc["install"]:
            name = normalized(item["metadata"]["name"])
            version = item["metadata"]["version"]
            sha256 = item["download_info"]["archive_info"]["hashes"]["sha256"]
            entry = chosen[name].setdefault(version, ([], set()))
            entry[0].append(python)
            entry[1].add(sha256)
    lines = [
        "# pinreport's dependencies on Windows (win_amd64), pinned with the sha256 of each wheel, for",
        f"# Python {', '.join(pythons)} (the classifiers of reports/pyproject.toml). Written by",
        "# `ci/wheelhouse.py lock`, on purpose only: edit pyproject.toml, run it, review the diff.",
        "# ci/wheelhouse.py build downloads exactly these files into the Windows zip's wheelhouse.",
    ]
    for name in sorted(chosen):
        versions = chosen[name]
        for version in sorted(versions):
            for_pythons, hashes = versions[version]
            marker = ""
            if len(versions) > 1:
                marker = " ; " + " or ".join(f'python_version == "{p}"' for p in for_pythons)
            lines.append(f"{name}=={version}{marker} \\")
            ordered = sorted(hashes)
            for i, h in enumerate(ordered):
                lines.append(f"    --hash=sha256:{h}" + (" \\" if i + 1 < len(ordered) else ""))
    text = "\n".join(lines) + "\n"
    tmp = LOCK.with_name(LOCK.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(LOCK)
    print(f"wheelhouse: wrote {LOCK.relative_to(ROOT)}: {len(chosen)} packages for Python {', '.join(pythons)}")
    return 0


def locked() -> list[tuple[str, str, str, list[str]]]:
    """The lock's entries: (name, version, marker, sha256 list)."""
    entries: list[tuple[str, str, str, list[str]]] = []
    for line in LOCK.read_text(encoding="utf-8").splitlines():
        if match := PINNED.match(line):
            entries.append((normalized(match.group(1)), match.group(2), match.group(3) or "", []))
        elif (found := HASH.search(line)) and entries:
            entries[-1][3].append(found.group(1))
    return entries


def marker_holds(marker: str, python: str) -> bool:
    """The lock's own markers only: empty, or `python_version == "X"` joined by `or`."""
    if not marker:
        return True
    return python in re.findall(r'python_version == "(3\.\d+)"', marker)


def check_lock() -> list[str]:
    """Why the lock does not answer pyproject.toml: a dependency without a pin for a supported
    Python, a pin outside the dependency's range, a pin without a hash, a Python of the lock's
    header that pyproject.toml no longer lists."""
    from packaging.requirements import Requirement  # pip's own vendored copy is not public API

    problems = []
    pythons = supported_pythons()
    entries = locked()
    header = LOCK.read_text(encoding="utf-8").splitlines()[1]
    if f"# Python {', '.join(pythons)} " not in header + " ":
        problems.append(f"the lock is for {header[2:]}, pyproject.toml lists Python {', '.join(pythons)}")
    for name, version, _marker, hashes in entries:
        if not hashes:
            problems.append(f"{name}=={version}: no hash")
    for dependency in project()["dependencies"]:
        requirement = Requirement(dependency)
        name = normalized(requirement.name)
        for python in pythons:
            pins = [v for n, v, m, _ in entries if n == name and marker_holds(m, python)]
            if len(pins) != 1:
                problems.append(f"{name}: {len(pins)} pins for Python {python}, expected 1")
            elif pins[0] not in requirement.specifier:
                problems.append(f"{name}=={pins[0]} (Python {python}) is outside {requirement.specifier}")
    return problems


def cache_dir() -> Path:
    key = hashlib.sha256(LOCK.read_bytes()).hexdigest()[:16]
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    home = Path(os.environ.get("PINBENCH_CACHE") or cache / "pinbench")
    return home / "wheelhouse" / key


def build(out: Path, pinreport: Path | None) -> int:
    cached = cache_dir()
    if not (cached / ".complete").is_file():
        shutil.rmtree(cached, ignore_errors=True)
        partial = cached.with_name(cached.name + ".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        for python in supported_pythons():
            # pip evaluates a requirement's markers for the Python it runs on, not the one
            # --python-version names: the lock's lines for `python` are chosen here.
            pins = partial / f"lock-{python}.txt"
            pins.write_text(
                "".join(
                    f"{name}=={version} " + " ".join(f"--hash=sha256:{h}" for h in hashes) + "\n"
                    for name, version, marker, hashes in locked()
                    if marker_holds(marker, python)
                ),
                encoding="utf-8",
            )
            done = subprocess.run(
                [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--require-hashes",
                 *target_args(python), "-r", str(pins), "-d", str(partial)],
                capture_output=True, text=True, env=pip_env(),
            )  # fmt: skip
            pins.unlink()
            if done.returncode != 0:
                print(f"wheelhouse: downloading the locked wheels for Python {python} failed:\n"
                      f"{done.stdout}{done.stderr}", file=sys.stderr)  # fmt: skip
                return 2
        (partial / ".complete").write_text("downloaded by ci/wheelhouse.py build, every hash checked\n")
        partial.rename(cached)
    out.mkdir(parents=True, exist_ok=True)
    for wheel in sorted(cached.glob("*.whl")):
        shutil.copy2(wheel, out / wheel.name)
    if pinreport is not None:
        shutil.copy2(pinreport, out / pinreport.name)
    wheels = sorted(out.glob("*.whl"))
    size = sum(w.stat().st_size for w in wheels)
    print(f"wheelhouse: {out}: {len(wheels)} wheels, {size / 2**20:.1f} MiB (cache {cached})")
    return 0


def resolve(wheelhouse: Path, requirement: str = "pinreport") -> list[str]:
    """Why pip cannot install `requirement` from `wheelhouse` alone, per supported Python (empty
    when it can): `pip install --no-index --find-links WHEELHOUSE` for win_amd64."""
    problems = []
    for python in supported_pythons():
        rc, doc, output = resolve_report(python, [requirement], ["--no-index", "--find-links", str(wheelhouse)])
        if rc != 0:
            problems.append(f"Python {python}: pip exit {rc}:\n{output.strip()}")
            continue
        names = sorted(normalized(i["metadata"]["name"]) for i in doc.get("install", []))
        if "pinreport" not in names:
            problems.append(f"Python {python}: pinreport is not among {names}")
        else:
            print(f"wheelhouse: Python {python}, win_amd64, no index: {len(names)} packages ({', '.join(names)})")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("lock", help="rewrite ci/wheelhouse.lock from PyPI")
    sub.add_parser("check-lock", help="the lock answers reports/pyproject.toml")
    b = sub.add_parser("build", help="download the locked wheels into DIR")
    b.add_argument("--out", type=Path, required=True)
    b.add_argument("--pinreport", type=Path, help="the pinreport wheel to add")
    r = sub.add_parser("resolve", help="pip installs pinreport from DIR with no index, each supported Python")
    r.add_argument("wheelhouse", type=Path)
    args = parser.parse_args(argv)
    if args.command == "lock":
        return lock()
    if args.command == "check-lock":
        problems = check_lock()
    elif args.command == "build":
        if problems := check_lock():
            print("\n".join(f"wheelhouse: {p}" for p in problems), file=sys.stderr)
            return 1
        return build(args.out, args.pinreport)
    else:
        problems = resolve(args.wheelhouse)
    for p in problems:
        print(f"wheelhouse: {p}", file=sys.stderr)
    if not problems:
        print(f"wheelhouse: {args.command}: ok")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
