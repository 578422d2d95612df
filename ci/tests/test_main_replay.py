"""ci/main.sh without a GPU: the answer through the replay backend on the committed H200 results,
labelled REPLAYED on every line that carries a number, with an HTML report beside it.

Needs the pinbench binary (build/ci-nogpu/harness/pinbench, or $PINBENCH_BIN) and pinreport
(.venv/bin/pinreport, or $PINREPORT_BIN); nothing is built or installed (SKIP_SETUP=1)."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _tool(env_name: str, default: Path) -> Path:
    path = Path(os.environ.get(env_name, default))
    if not path.is_file():
        pytest.skip(f"{path} is missing (set {env_name})")
    return path


def test_main_without_gpu_gives_the_replayed_answer(tmp_path: Path) -> None:
    pinbench = _tool("PINBENCH_BIN", ROOT / "build" / "ci-nogpu" / "harness" / "pinbench")
    pinreport = _tool("PINREPORT_BIN", ROOT / ".venv" / "bin" / "pinreport")
    out = tmp_path / "out"
    env = {
        **os.environ,
        "SKIP_SETUP": "1",
        "MAIN_REPLAY": "1",
        "PINBENCH_EXE": str(pinbench),
        "PINREPORT": str(pinreport),
        "OUT": str(out),
    }
    job = subprocess.run(["bash", str(ROOT / "ci" / "main.sh")], capture_output=True, text=True, env=env, timeout=300)
    assert job.returncode == 0, job.stdout + job.stderr
    # The answer's runs only, as on a GPU (ci/main.sh's default scope): the source's overhead runs.
    source = json.loads((ROOT / "results/h200-quick/results.json").read_text())["runs"]
    wanted = sorted(r["id"] for r in source if r["id"].startswith("quick-overhead/"))
    assert len(wanted) < len(source)
    assert sorted(r["id"] for r in json.loads((out / "quick.json").read_text())["runs"]) == wanted
    lines = job.stdout.splitlines()
    answer = [line for line in lines if "per pinned GiB" in line or "reserve per GPU" in line]
    assert len(answer) >= 10  # five pinned APIs, each a cost line and a reserve line
    assert all(line.startswith("[REPLAYED] ") for line in answer), answer
    assert any("no headline" in line for line in lines)
    # The previous release is the real measurement the replay came from; the script's +8 MiB on
    # cudaMallocHost's cudaMemGetInfo shows as a (replayed) regression.
    assert any(line.startswith("[REPLAYED] Since driver 580.159.04: ") and "REGRESSION" in line for line in lines)
    report = out / "report.html"
    assert f"HTML report: {report} (REPLAYED DATA, not a measurement)" in lines
    html = report.read_text()
    assert "No headline: REPLAYED DATA." in html
    summary = (out / "summary.md").read_text()
    assert "**REPLAYED DATA**" in summary
    rows = [r for r in summary.splitlines() if r.startswith("| ") and not r.startswith(("| api ", "| ---"))]
    assert len(rows) == 5 and all(r.startswith("| [REPLAYED] ") for r in rows), rows
