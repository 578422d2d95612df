"""ci/nightly.sh's summary and exit code for pinreport outcomes that need no GPU and no build:
an internal error (exit 4) and disturbed runs (exit 3, "N runs disturbed: no verdict on them").
pinbench and pinreport are small stand-in scripts, so only the script's own logic is tested."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
NIGHTLY = ROOT / "ci" / "nightly.sh"

FAKE_PINBENCH = """#!/usr/bin/env bash
# run --backend replay ... -o FILE: writes FILE; store add FILE --store DIR: makes DIR a store.
out=""; store=""
while (($#)); do
  case $1 in -o) out=$2; shift ;; --store) store=$2; shift ;; esac
  shift
done
[[ -n $out ]] && echo '{}' >"$out"
[[ -n $store ]] && mkdir -p "$store" && echo '{}' >"$store/store.json"
exit 0
"""


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _night(
    tmp_path: Path, compare_output: str, compare_exit: int, pinbench: Path | None = None
) -> tuple[subprocess.CompletedProcess, Path]:
    pinbench = pinbench or _script(tmp_path / "pinbench", FAKE_PINBENCH)
    pinreport = _script(
        tmp_path / "pinreport",
        "#!/usr/bin/env bash\n"
        f'if [[ $1 == compare ]]; then printf "%s\\n" "{compare_output}"; exit {compare_exit}; fi\n'
        "exit 0\n",
    )
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    night = subprocess.run(
        ["bash", str(NIGHTLY), "--replay-from", "x.json", "--replay-script", "y.yaml",
         "--store", str(tmp_path / "store"), "--out", str(out), "--skip-build",
         "--pinbench", str(pinbench), "--pinreport", str(pinreport)],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    return night, out


def test_internal_error_of_pinreport_is_exit_4_not_a_regression(tmp_path):
    night, out = _night(tmp_path, "pinreport: internal error (exit 4, no verdict given): KeyError: x", 4)
    assert night.returncode == 4
    summary = (out / "summary.md").read_text()
    assert "INTERNAL ERROR in: pinreport compare" in summary
    assert "REGRESSION" not in summary
    assert (out / "exit_code").read_text().strip() == "4"


@pytest.mark.parametrize("prefix", ["", "[REPLAYED] "])
def test_disturbed_runs_are_named_never_a_regression(tmp_path, prefix):
    night, out = _night(
        tmp_path, f"{prefix}2 runs disturbed: no verdict on them (another process moved device memory)", 3
    )
    assert night.returncode == 3
    summary = (out / "summary.md").read_text()
    assert "2 runs disturbed: no verdict on them" in summary
    assert "REGRESSION" not in summary
    assert (out / "disturbed").read_text().strip() == "2"


def test_a_crash_still_counts_as_infrastructure(tmp_path):
    night, out = _night(tmp_path, "Segmentation fault", 139)
    assert night.returncode == 3
    assert (out / "disturbed").read_text().strip() == "0"


def test_a_busy_gpu_is_one_line_of_the_summary(tmp_path):
    """pinbench run stopped because one neighbour kept the GPU busy (docs/disturbance.md): the
    summary names it in one line, and the night is infrastructure (exit 3), not a regression."""
    busy = (
        "the GPU is busy: pid 949 (pinbench_neighb) moved device memory 14 times in 16 s: the null window "
        "before the first run and each of the 3 attempts since were disturbed"
    )
    fake = FAKE_PINBENCH.replace(
        "exit 0\n",
        f'[[ -n $out ]] && echo "pinbench: stopped: {busy}; the remaining 3 runs were not measured" >&2 && exit 3\n'
        "exit 0\n",
    )
    pinbench = _script(tmp_path / "pinbench-busy", fake)
    night, out = _night(tmp_path, "1 runs disturbed: no verdict on them", 3, pinbench=pinbench)
    assert night.returncode == 3, night.stderr
    summary = (out / "summary.md").read_text()
    assert f"- {busy}; pinbench run stopped, the rest not measured" in summary.splitlines()
    assert "REGRESSION" not in summary


def _gpu_night(tmp_path: Path, budget_exit: int, extra: list[str]) -> tuple[subprocess.CompletedProcess, Path, str]:
    """A night on the GPU path (no --replay-from) with stand-ins that log every call."""
    log = tmp_path / "calls.log"
    fake = FAKE_PINBENCH.replace(
        'out=""; store=""\n',
        f'echo "pinbench $*" >>"{log}"; cmd=$1\nout=""; store=""\n',
    ).replace("exit 0\n", f"[[ $cmd == budget ]] && exit {budget_exit}\nexit 0\n")
    pinbench = _script(tmp_path / "pinbench", fake)
    pinreport = _script(
        tmp_path / "pinreport",
        f'#!/usr/bin/env bash\necho "pinreport $*" >>"{log}"\n[[ $1 == budget-compare ]] && exit 1\nexit 0\n',
    )
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY"}
    night = subprocess.run(
        ["bash", str(NIGHTLY), "--store", str(tmp_path / "store"), "--out", str(out), "--skip-build",
         "--skip-bench", "--fuzz-seconds", "0", "--pinbench", str(pinbench), "--pinreport", str(pinreport),
         *extra],
        capture_output=True, text=True, env=env, timeout=60,
    )  # fmt: skip
    return night, out, log.read_text()


def test_the_night_measures_the_budget_and_the_answer_shows_it(tmp_path):
    night, out, calls = _gpu_night(tmp_path, 0, [])
    assert night.returncode == 0, night.stderr
    budget = out / "budget.json"
    assert f"pinbench budget --held-only -o {budget}\n" in calls
    assert budget.exists()
    summary_call = next(x for x in calls.splitlines() if x.startswith("pinreport summary"))
    html_call = next(x for x in calls.splitlines() if x.startswith("pinreport html"))
    assert f"--budget {budget}" in summary_call and f"--budget {budget}" in html_call
    assert "budget-compare" not in calls  # no --budget-baseline
    assert "- budget: exit 0" in (out / "summary.md").read_text().splitlines()


def test_a_shrunk_budget_against_the_baseline_is_a_regression(tmp_path):
    old = tmp_path / "old-budget.json"
    night, out, calls = _gpu_night(tmp_path, 0, ["--budget-baseline", str(old)])
    assert night.returncode == 1
    assert f"pinreport budget-compare {old} {out / 'budget.json'}\n" in calls
    assert f"- pinreport budget-compare {old}: exit 1" in (out / "summary.md").read_text().splitlines()


def test_a_budget_without_an_answer_is_infrastructure_and_skipping_is_said(tmp_path):
    night, out, _ = _gpu_night(tmp_path, 3, [])
    assert night.returncode == 3
    assert "INFRASTRUCTURE FAILURE in: budget" in (out / "summary.md").read_text()
    (tmp_path / "skip").mkdir()
    night, out, calls = _gpu_night(tmp_path / "skip", 0, ["--skip-budget"])
    assert night.returncode == 0
    assert "pinbench budget" not in calls and "--budget" not in calls
    assert "- budget: skipped (--skip-budget)" in (out / "summary.md").read_text().splitlines()


def test_a_replayed_night_says_why_there_is_no_budget(tmp_path):
    night, out = _night(tmp_path, "", 0)
    assert night.returncode == 0
    assert (
        "- budget: skipped (replay backend: it has no driver whose pin limit could be searched)"
        in (out / "summary.md").read_text().splitlines()
    )


# --- --wheelhouse: pinreport installed from the package's wheelhouse, no index ------------------

STAND_IN_PINREPORT = """import sys


def main():
    if sys.argv[1:2] == ["compare"]:
        print("stand-in pinreport from the wheelhouse: nothing regressed")
    return 0
"""


def _stand_in_wheel(folder: Path) -> Path:
    """A pinreport wheel whose console script says where it came from (no dependencies)."""
    import base64
    import hashlib
    import zipfile

    files = {
        "pinreport_stand_in.py": STAND_IN_PINREPORT,
        "pinreport-0.0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: pinreport\nVersion: 0.0.1\n",
        "pinreport-0.0.1.dist-info/WHEEL": (
            "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
        "pinreport-0.0.1.dist-info/entry_points.txt": "[console_scripts]\npinreport = pinreport_stand_in:main\n",
    }
    record = []
    wheel = folder / "pinreport-0.0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as zf:
        for name, text in files.items():
            data = text.encode()
            zf.writestr(name, data)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
            record.append(f"{name},sha256={digest},{len(data)}")
        zf.writestr("pinreport-0.0.1.dist-info/RECORD", "\n".join(record) + "\npinreport-0.0.1.dist-info/RECORD,,\n")
    return wheel


def _wheelhouse_night(tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, Path]:
    pinbench = _script(tmp_path / "pinbench", FAKE_PINBENCH)
    out = tmp_path / "out"
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_STEP_SUMMARY" and not k.startswith("PIP_")}
    night = subprocess.run(
        ["bash", str(NIGHTLY), "--replay-from", "x.json", "--replay-script", "y.yaml",
         "--store", str(tmp_path / "store"), "--out", str(out), "--skip-build", "--pinbench", str(pinbench), *extra],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    return night, out


def test_no_python_for_pinreport_is_infrastructure_exit_3_and_says_so(tmp_path):
    (tmp_path / "wheelhouse").mkdir()
    night, out = _wheelhouse_night(
        tmp_path, "--wheelhouse", str(tmp_path / "wheelhouse"), "--python", str(tmp_path / "no-python")
    )
    assert night.returncode == 3, night.stderr
    summary = (out / "summary.md").read_text()
    assert "find Python 3.11 or later for pinreport" in summary and "exit 3" in summary
    assert "INFRASTRUCTURE FAILURE" in summary


def test_a_wheelhouse_without_pinreport_is_exit_3(tmp_path):
    (tmp_path / "wheelhouse").mkdir()
    night, out = _wheelhouse_night(tmp_path, "--wheelhouse", str(tmp_path / "wheelhouse"), "--python", sys.executable)
    assert night.returncode == 3, night.stderr
    assert "install pinreport from" in (out / "summary.md").read_text()
    assert "No matching distribution found for pinreport" in (out / "pinreport-install.log").read_text()


def test_pinreport_from_the_wheelhouse_is_the_one_the_night_runs(tmp_path):
    wheelhouse = tmp_path / "wheel house é"
    wheelhouse.mkdir()
    _stand_in_wheel(wheelhouse)
    night, out = _wheelhouse_night(tmp_path, "--wheelhouse", str(wheelhouse), "--python", sys.executable)
    assert night.returncode == 0, night.stderr + (out / "summary.md").read_text()
    assert "install pinreport from" in (out / "summary.md").read_text()
    assert "stand-in pinreport from the wheelhouse" in (out / "compare.txt").read_text()
