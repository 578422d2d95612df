"""Builds a virtual environment holding every dependency of pinreport at the lowest version its
reports/pyproject.toml admits (`pip install NAME==LOWER`, from PyPI), installs pinreport into it
without dependencies, and runs pinreport's test suite there: the declared lower bounds are
tested, not hoped for (jsonschema 4.17 was admitted and lacked `referencing`).

    python3 ci/check_lower_bounds.py [--venv DIR] [--keep] [-- PYTEST ARGS...]

PINBENCH_EXE is passed through (the suite needs the harness for older results files). Exit
code: the suite's, or 2 when the environment cannot be built (pip's output names why).
"""

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = REPO / "reports/pyproject.toml"
# Test-only packages the suite imports, at their lowest admitted versions too.
EXTRAS = ("test",)


def lower_pins(pyproject: Path = PYPROJECT) -> list[str]:
    """`NAME==LOWER` for every dependency (and test extra) of pinreport; a dependency without a
    `>=` lower bound is an error (nothing to test)."""
    project = tomllib.loads(pyproject.read_text())["project"]
    specs = list(project["dependencies"])
    for extra in EXTRAS:
        specs += project.get("optional-dependencies", {}).get(extra, [])
    pins = []
    for spec in specs:
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)\s*>=\s*([0-9][0-9A-Za-z.]*)(,.*)?", spec.strip())
        if not m:
            raise SystemExit(f"check_lower_bounds: {spec!r} has no lower bound (NAME>=VERSION) to test")
        pins.append(f"{m.group(1)}=={m.group(2)}")
    return pins


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--venv", help="where to build the environment (default: a temporary folder)")
    p.add_argument("--keep", action="store_true", help="keep the environment afterwards")
    p.add_argument("pytest_args", nargs="*", help="arguments for pytest (default: the whole suite)")
    args = p.parse_args()
    venv = Path(args.venv or tempfile.mkdtemp(prefix="pinreport-lower-"))
    try:
        subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
        py = venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")
        pins = lower_pins()
        print("check_lower_bounds: " + " ".join(pins), flush=True)
        pip = [str(py), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
        if subprocess.run([*pip, "--only-binary=:all:", *pins]).returncode != 0:
            print("check_lower_bounds: the lower bounds cannot be installed together (above)", file=sys.stderr)
            return 2
        if subprocess.run([*pip, "--no-deps", str(REPO / "reports")]).returncode != 0:
            return 2
        listed = subprocess.run([str(py), "-m", "pip", "freeze"], capture_output=True, text=True).stdout
        print("check_lower_bounds: installed " + " ".join(listed.split()), flush=True)
        tests = args.pytest_args or [str(REPO / "reports/tests")]
        # From the tests' folder's parent with the installed pinreport, not the checkout's.
        return subprocess.run([str(py), "-m", "pytest", "-q", "-p", "no:cacheprovider", *tests], cwd=REPO).returncode
    finally:
        if not args.keep and not args.venv:
            shutil.rmtree(venv, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
