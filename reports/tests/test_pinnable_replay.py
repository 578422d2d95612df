"""Max pinnable against free VRAM through the replay backend: the real H200 max_pinnable runs refute "max pinnable
tracks free VRAM" on Linux, and the same runs replayed into the shape of the public RTX 3090
table (relabelled WDDM; harness/tests/fixtures/replay/pinnable_rtx3090_table.yaml, test data
only) confirm it with a slope near 1."""

import json
import os
import subprocess
from pathlib import Path

import pytest
from conftest import REPO_ROOT, upgraded
from pinreport.analysis import pinnable_fit
from pinreport.readers.results import ResultsFile


def _runs(doc):
    return ResultsFile.of("results.json", doc).runs


def _collect(doc):
    return pinnable_fit.collect_runs(_runs(doc))


def _judge(doc):
    return pinnable_fit.judge(_runs(doc))


REAL = REPO_ROOT / "results/h200-pinnable/pinnable.json"
TABLE = REPO_ROOT / "harness/tests/fixtures/replay/pinnable_rtx3090_table.yaml"
PINBENCH = Path(os.environ.get("PINBENCH_EXE", REPO_ROOT / "build/ci-nogpu/harness/pinbench"))
MiB = 1024**2


def test_the_real_linux_runs_refute_it():
    j = _judge(json.loads(upgraded(REAL).read_text()))
    assert j.outcome == pinnable_fit.Outcome.REFUTED
    assert "with 1.00 GiB free it pinned at least 8.00 GiB" in j.evidence
    # the failure path really ran: the OS limit stopped both apis, and a small pin still worked
    assert "cudaErrorMemoryAllocation" in j.evidence and "std::bad_alloc" in j.evidence
    assert "the small pin after a failure succeeded in 2 of 2" in j.evidence


@pytest.mark.skipif(not PINBENCH.exists(), reason=f"{PINBENCH} is not built (ci/test.sh builds it first)")
def test_the_public_table_replayed_as_wddm_confirms_with_a_slope_near_one(tmp_path):
    out = tmp_path / "replayed.json"
    proc = subprocess.run(
        [str(PINBENCH), "run", "--backend", "replay", "--from", str(REAL), "--script", str(TABLE),
         "--only", "pinnable-free-vram/cudaMallocHost/*", "-o", str(out)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    doc = json.loads(out.read_text())
    assert doc["backend"] == "replay" and doc["environment"]["replayed"] is True
    assert doc["environment"]["devices"][0]["driver_model"]["current"] == "WDDM"
    points = _collect(doc)["cudaMallocHost"]
    by_free = {round(p.free_before / MiB): (round(p.max_pinnable / MiB), p.lower_bound) for p in points}
    assert by_free[804] == (1536, False) and by_free[1828] == (2816, False) and by_free[7972] == (8192, True)
    j = _judge(doc)
    assert j.outcome == pinnable_fit.Outcome.CONFIRMED
    fit = pinnable_fit.fit_slope(points)
    assert fit.slope == pytest.approx((2816 - 1536) / (1828 - 804))  # 1.25: the two uncapped points
    assert 0.5 <= fit.bound[0] <= fit.bound[1] <= 1.5
