"""The nightly workflows and scenario: schema-valid, calling the scripts, within budget.

ci/check_workflows.sh is the full lint (actionlint + check-jsonschema); these tests check what
the lint cannot: that the workflows only call the scripts, and that scenarios/nightly.yaml
plans and fits its time budget.
"""

import json
import os
import re
import shutil
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
WORKFLOWS = {
    "linux": ROOT / ".github" / "workflows" / "nightly-linux.yml",
    "windows": ROOT / ".github" / "workflows" / "nightly-windows.yml",
}
# The nightly scenario must stay under 10 minutes on one H200. It is measured, not modelled:
# results/h200-nightly-free-vram holds the latest real run of scenarios/nightly.yaml, and the plan
# of today's file must be the plan that was timed there (change the file, run it again, commit
# the result).
NIGHTLY_RESULTS = ROOT / "results" / "h200-nightly-free-vram" / "results.json"
BUDGET_S = 600
CATALOG = ROOT / "reports" / "pinreport" / "data" / "metric_catalog.json"  # the kind registry's export


def _load(path: Path) -> dict:
    try:
        from ruamel.yaml import YAML  # comes with check-jsonschema
    except ImportError:
        yaml = pytest.importorskip("yaml", reason="needs ruamel.yaml (check-jsonschema) or PyYAML")
        return yaml.safe_load(path.read_text())
    return YAML(typ="safe").load(path.read_text())


@pytest.mark.parametrize("name", sorted(WORKFLOWS))
def test_workflow_matches_the_github_schema(name):
    tool = shutil.which("check-jsonschema")
    if tool is None:
        pytest.skip("check-jsonschema is not installed")
    done = subprocess.run(
        [tool, "--builtin-schema", "vendor.github-workflows", str(WORKFLOWS[name])], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("name,script", [("linux", "ci/nightly.sh"), ("windows", "ci/nightly.ps1")])
def test_workflow_is_scheduled_self_hosted_and_calls_the_script(name, script):
    wf = _load(WORKFLOWS[name])
    # YAML 1.1 readers turn the key `on` into True.
    on = wf.get("on", wf.get(True))
    assert re.fullmatch(r"[0-9*/ ,-]+", on["schedule"][0]["cron"])
    assert {"scenario", "store"} <= set(on["workflow_dispatch"]["inputs"])
    job = wf["jobs"]["nightly"]
    assert job["runs-on"][:2] == ["self-hosted", name]
    runs = [s.get("run", "") for s in job["steps"]]
    calls = [r for r in runs if script in r]
    assert len(calls) == 1, runs
    # The script gets the store home and the scenario; no step repeats its logic.
    assert "--store-home" in calls[0] and "--scenario" in calls[0]
    assert not any("pinbench" in r and "doctor" in r for r in runs)
    # Every exit code has its own conclusion step, and artifacts are uploaded whatever happened.
    names = " ".join(s.get("name", "") for s in job["steps"])
    for code in ("exit 1", "exit 2", "exit 3"):
        assert code in names
    upload = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    assert upload and upload[0]["if"] == "always()" and upload[0]["with"]["path"] == "out/nightly/"


def test_nightly_scenario_is_the_one_timed_on_the_h200():
    pinbench = Path(os.environ.get("PINBENCH_BIN", ROOT / "build" / "ci-nogpu" / "harness" / "pinbench"))
    if not pinbench.is_file():
        pytest.skip(f"{pinbench} is not built")
    done = subprocess.run(
        [str(pinbench), "plan", str(ROOT / "scenarios" / "nightly.yaml")], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    planned = re.findall(r"^(\S+)\s+repeats (\d+)", done.stdout, re.MULTILINE)
    measured = json.loads(NIGHTLY_RESULTS.read_text())
    assert measured["backend"] == "cuda" and measured["complete"]
    assert [(r["id"], r["plan"]["repeats"]) for r in measured["runs"]] == [(i, int(n)) for i, n in planned]
    start, end = (datetime.fromisoformat(measured[k].replace("Z", "+00:00")) for k in ("started_at", "finished_at"))
    assert (end - start).total_seconds() <= BUDGET_S
    # The verdict needs 7 repeats on each side for the overhead runs it judges most.
    assert all(int(n) >= 7 for i, n in planned if i.startswith("nightly-overhead/"))
    # Every kind of the registry runs each night but a team's own (command: its scenario,
    # scenarios/pytorch-dataloader.yaml, is added to a nightly by the team that owns the program).
    kinds = {r["plan"]["kind"] for r in measured["runs"]}
    assert kinds == {k["name"] for k in json.loads(CATALOG.read_text())["kinds"] if k["report"] != "optional_section"}
    assert "nightly-overhead/pageable/64MiB/x1/g1" in done.stdout


def test_windows_runners_measure_with_the_package_ci_built_and_compile_nothing():
    wf = _load(WORKFLOWS["windows"])
    build = wf["jobs"]["package"]
    assert "self-hosted" not in str(build["runs-on"])  # GitHub-hosted: no GPU runner time spent building
    build_runs = " ".join(s.get("run", "") for s in build["steps"])
    assert "ci/check_windows.sh" in build_runs and "ci/wheel.py windows" in build_runs
    nightly = wf["jobs"]["nightly"]
    assert nightly["needs"] == "package"
    runs = " ".join(s.get("run", "") for s in nightly["steps"])
    # pinbench from the wheel built above, pip-installed as users do (docs/pip-install.md).
    assert "pip install" in runs and "-py3-none-win_amd64.whl" in runs and "Expand-Archive" not in runs
    assert "(Resolve-Path .venv\\Scripts)" in runs and '--package "$scripts\\pinbench.exe"' in runs
    for compiler in ("cmake", "cl.exe", "nvcc", "vcpkg", "g++", "ninja", "Enter-VsDevShell"):
        assert compiler not in runs
    script = (ROOT / "ci" / "nightly.ps1").read_text()
    for compiler in ("cmake", "vswhere", "vcpkg", "Enter-VsDevShell"):
        assert compiler not in script


def test_the_linux_nightly_installs_pinbench_from_the_wheel_ci_built_and_tested():
    wf = _load(WORKFLOWS["linux"])
    build = wf["jobs"]["wheel"]
    assert "self-hosted" not in str(build["runs-on"])
    assert "ci/wheel_check.sh" in " ".join(s.get("run", "") for s in build["steps"])
    nightly = wf["jobs"]["nightly"]
    assert nightly["needs"] == "wheel"
    runs = " ".join(s.get("run", "") for s in nightly["steps"])
    assert "pip install" in runs and "manylinux_*_x86_64.whl" in runs and "-e reports" not in runs
    assert "--pinbench .venv/bin/pinbench" in runs and "--pinreport .venv/bin/pinreport" in runs


def test_a_release_attaches_both_pinbench_wheels():
    jobs = _load(ROOT / ".github" / "workflows" / "release.yml")["jobs"]
    runs = {name: " ".join(s.get("run", "") for s in job["steps"]) for name, job in jobs.items()}
    assert "ci/wheel.py windows --out out/package" in runs["windows"]
    assert "ci/wheel_check.sh" in runs["linux"] and "manylinux_*_x86_64.whl out/package/" in runs["linux"]
    assert "out/*.whl" in runs["publish"]
