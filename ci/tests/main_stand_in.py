"""ci/main.sh's GPU path without a GPU, for its tests: a stand-in pinbench that logs every call
(`pinbench ARGS`, one line each, in calls.log) and plays doctor, run (it copies a committed
results file to `-o`) and budget (a committed document, held-only with --held-only), the real
pinbench for the rest (store add, results upgrade); a
stand-in nvidia-smi that names one GPU; pinreport from reports/."""

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CURRENT = ROOT / "reports/tests/fixtures/current-580.65.06.json"
BUDGET = ROOT / "reports/tests/fixtures/budget/double-poisons.json"
BUDGET_HELD_ONLY = ROOT / "reports/tests/fixtures/budget/double-poisons-held-only.json"


def _real_pinbench() -> Path:
    path = Path(os.environ.get("PINBENCH_BIN", ROOT / "build" / "ci-nogpu" / "harness" / "pinbench"))
    if not path.is_file():
        pytest.skip(f"{path} is not built (the CI builds it before pytest; or set PINBENCH_BIN)")
    return path


def _script(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def run_main(
    tmp_path: Path, *, budget_writes: bool = True, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess, Path, str]:
    """ci/main.sh with the stand-ins, `env` added to the environment: the job, its OUT and the
    stand-in pinbench's calls ("" where it was never called)."""
    real = _real_pinbench()
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(parents=True)
    log = tmp_path / "calls.log"
    # The document its options ask for (--held-only: the held phases alone) to its -o.
    budget = (
        f"doc={BUDGET}; [[ \" $* \" == *' --held-only '* ]] && doc={BUDGET_HELD_ONLY}; "
        'shift; while (($#)); do [[ $1 == -o ]] && cp "$doc" "$2"; shift; done; exit 0'
        if budget_writes
        else 'echo "no GPU answered" >&2; exit 3'
    )
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
    job_env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", SKIP_SETUP="1", OUT=str(out))
    job_env.update(PINBENCH_EXE=str(pinbench), PINREPORT=str(pinreport))
    job_env.pop("MAIN_REPLAY", None)
    job_env.pop("MAIN_SCOPE", None)
    job_env.update(env or {})
    job = subprocess.run(["bash", str(ROOT / "ci/main.sh")], capture_output=True, text=True, env=job_env, timeout=120)
    return job, out, log.read_text() if log.exists() else ""
