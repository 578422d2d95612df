"""ci/main.sh's pin budget: on the GPU path it runs `pinbench budget -o OUT/budget.json` before the
answer and passes it to `pinreport summary` and `html` (one line each); under the replay backend
it says why there is none. A stand-in pinbench plays doctor, run and budget (copying committed
files), the real one stores; a stand-in nvidia-smi makes the GPU path run without a GPU."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CURRENT = ROOT / "reports/tests/fixtures/current-580.65.06.json"
BUDGET = ROOT / "reports/tests/fixtures/budget/double-poisons.json"
LINE = "Pin budget (pinbench test-double GPU, driver 0.0-test-double, linux): cudaMallocHost 32.00 MiB"


def _real_pinbench() -> Path:
    path = Path(os.environ.get("PINBENCH_BIN", ROOT / "build" / "ci-nogpu" / "harness" / "pinbench"))
    if not path.is_file():
        pytest.skip(f"{path} is not built (the CI builds it before pytest; or set PINBENCH_BIN)")
    return path


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def _main(tmp_path: Path, budget_writes: bool) -> tuple[subprocess.CompletedProcess, Path, str]:
    real = _real_pinbench()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "calls.log"
    budget = f'cp {BUDGET} "$3"; exit 0' if budget_writes else 'echo "no GPU answered" >&2; exit 3'
    pinbench = _script(
        bin_dir / "pinbench",
        f"""#!/usr/bin/env bash
echo "pinbench $*" >>{log}
case $1 in
  doctor) exit 0 ;;
  run) shift; while (($#)); do [[ $1 == -o ]] && cp {CURRENT} "$2"; shift; done; exit 0 ;;
  budget) {budget} ;;
  *) exec {real} "$@" ;;
esac
""",
    )
    _script(bin_dir / "nvidia-smi", "#!/bin/sh\necho 'GPU 0: stand-in'\n")
    pinreport = _script(
        bin_dir / "pinreport",
        f'#!/usr/bin/env bash\nPYTHONPATH={ROOT / "reports"} exec {sys.executable} -m pinreport "$@"\n',
    )
    out = tmp_path / "out"
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", SKIP_SETUP="1", OUT=str(out))
    env.update(PINBENCH_EXE=str(pinbench), PINREPORT=str(pinreport))
    env.pop("MAIN_REPLAY", None)
    job = subprocess.run(["bash", str(ROOT / "ci/main.sh")], capture_output=True, text=True, env=env, timeout=120)
    return job, out, log.read_text()


def test_main_gives_the_budget_line_in_the_answer_and_the_report(tmp_path):
    job, out, calls = _main(tmp_path, budget_writes=True)
    assert job.returncode == 0, job.stderr
    assert f"pinbench budget -o {out / 'budget.json'}\n" in calls
    lines = job.stdout.splitlines()
    assert any(x.startswith(LINE) for x in lines), job.stdout
    assert LINE in (out / "summary.md").read_text()
    assert f'<p id="answer-budget"><b>{LINE}' in (out / "report.html").read_text()


def test_main_without_a_budget_document_says_so_and_still_answers(tmp_path):
    job, out, _ = _main(tmp_path, budget_writes=False)
    assert job.returncode == 0, job.stderr
    assert "pinbench: pinbench budget wrote no document (exit 3" in job.stdout
    assert "Pin budget" not in job.stdout
    assert "pinbench answer:" in job.stdout
