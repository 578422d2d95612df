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


def _outcomes():
    """ci/workflow_outcomes.py as a module."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("workflow_outcomes", ROOT / "ci" / "workflow_outcomes.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["workflow_outcomes"] = module
    spec.loader.exec_module(module)
    return module


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


def test_windows_runners_measure_with_the_zip_ci_built_and_compile_nothing():
    wf = _load(WORKFLOWS["windows"])
    build = wf["jobs"]["package"]
    assert "self-hosted" not in str(build["runs-on"])  # GitHub-hosted: no GPU runner time spent building
    build_runs = " ".join(s.get("run", "") for s in build["steps"])
    assert "ci/check_windows.sh" in build_runs and "ci/package.py windows" in build_runs
    (upload,) = [s for s in build["steps"] if str(s.get("uses", "")).startswith("actions/upload-artifact")]
    nightly = wf["jobs"]["nightly"]
    assert nightly["needs"] == "package"
    (download,) = [s for s in nightly["steps"] if str(s.get("uses", "")).startswith("actions/download-artifact")]
    assert download["with"]["name"] == upload["with"]["name"]  # the zip the package job made
    runs = " ".join(s.get("run", "") for s in nightly["steps"])
    # The zip users download, unzipped as they do; pinreport from its wheelhouse with no index.
    assert "Expand-Archive" in runs and "-windows-x64.zip" in runs
    assert '--package "$package\\pinbench.exe"' in runs and '--wheelhouse "$package\\wheelhouse"' in runs
    assert "pip install" not in runs  # nothing from PyPI on the runner: ci/nightly.sh installs offline
    for compiler in ("cmake", "cl.exe", "nvcc", "vcpkg", "g++", "ninja", "Enter-VsDevShell"):
        assert compiler not in runs
    script = (ROOT / "ci" / "nightly.ps1").read_text()
    for compiler in ("cmake", "vswhere", "vcpkg", "Enter-VsDevShell"):
        assert compiler not in script


def test_the_windows_runner_needs_only_what_windows_has_and_what_the_workflow_installs():
    """Windows PowerShell 5.1 (or cmd) for every step, never pwsh unless a step installs it; Python
    from actions/setup-python, its path passed to the night."""
    nightly = _load(WORKFLOWS["windows"])["jobs"]["nightly"]
    default = nightly.get("defaults", {}).get("run", {}).get("shell")
    shells = {s.get("shell", default) for s in nightly["steps"] if "run" in s}
    assert shells <= {"powershell", "cmd"}, shells
    assert "pwsh" not in " ".join(s.get("run", "") for s in nightly["steps"])
    (python,) = [s for s in nightly["steps"] if str(s.get("uses", "")).startswith("actions/setup-python")]
    step = python["id"]
    assert f'--python "${{{{ steps.{step}.outputs.python-path }}}}"' in " ".join(
        s.get("run", "") for s in nightly["steps"]
    )
    # Windows PowerShell 5.1's Out-File -Encoding utf8 writes a byte order mark: GITHUB_OUTPUT is
    # written in ASCII.
    outputs = [s["run"] for s in nightly["steps"] if "GITHUB_OUTPUT" in s.get("run", "")]
    assert outputs and all("-Encoding ascii" in r and "Out-File" not in r for r in outputs)


def _runner_setup_section() -> str:
    text = (ROOT / "ci" / "README.md").read_text()
    start = text.index("## Setting up a Windows GPU runner")
    return text[start : text.index("\n## ", start + 1)]


def test_the_runner_set_up_names_everything_the_windows_job_uses():
    """ci/README.md's runner set-up is the list a stranger follows: every action the job uses and
    every program its steps call must be named there (the job read step by step)."""
    section = _runner_setup_section()
    nightly = _load(WORKFLOWS["windows"])["jobs"]["nightly"]
    for step in nightly["steps"]:
        if "uses" in step:
            action = step["uses"].split("@")[0]
            assert action in section, f"ci/README.md's runner set-up does not name {action}"
    for needed in ("Windows PowerShell 5.1", "Git for Windows", "Python", "NVIDIA driver", "Expand-Archive"):
        assert needed in section, needed


def test_a_night_is_green_only_when_it_exits_0_and_every_other_code_is_explained():
    """ci/workflow_outcomes.py walks each nightly job for exit 0, 1-4, 130, 143, 137 and 255."""
    outcomes = _outcomes()
    for path in WORKFLOWS.values():
        assert outcomes.check(path) == []
        for code in (130, 143):
            job = _load(path)["jobs"]["nightly"]
            shell = job.get("defaults", {}).get("run", {}).get("shell", "bash")
            walked = outcomes.walk(job, shell, code)
            assert not walked.green and len(walked.explained_by) == 1
            assert "Cancelled or unknown outcome" in walked.explained_by[0]


# The nightly step of c67c4a8's workflows: it always exited 0 and each code had a step of its own,
# so a cancelled night (130) matched none and the job passed.
ALWAYS_GREEN = {
    "pwsh": """
jobs:
  nightly:
    defaults: {run: {shell: pwsh}}
    steps:
      - id: nightly
        run: |
          $scripts = (Resolve-Path .venv\\Scripts).Path
          ci/nightly.ps1 --package "$scripts\\pinbench.exe"
          "exit_code=$LASTEXITCODE" | Out-File -Append -Encoding utf8 $env:GITHUB_OUTPUT
          exit 0
      - name: "Regression (exit 1)"
        if: steps.nightly.outputs.exit_code == '1'
        run: exit 1
      - name: "Unknown outcome"
        if: steps.nightly.outputs.exit_code == ''
        run: exit 3
""",
    "bash": """
jobs:
  nightly:
    steps:
      - id: nightly
        run: |
          set +e
          ci/nightly.sh --out out/nightly
          echo "exit_code=$?" >>"$GITHUB_OUTPUT"
      - name: "Regression (exit 1)"
        if: steps.nightly.outputs.exit_code == '1'
        run: exit 1
""",
}


@pytest.mark.parametrize("shell", sorted(ALWAYS_GREEN))
def test_the_checker_finds_the_cancelled_night_that_passed(tmp_path, shell):
    outcomes = _outcomes()
    path = tmp_path / "old.yml"
    path.write_text(ALWAYS_GREEN[shell])
    problems = outcomes.check(path)
    assert "old.yml: a night ending with exit 130 leaves the job green" in problems
    assert "old.yml: a night ending with exit 143 leaves the job green" in problems


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
