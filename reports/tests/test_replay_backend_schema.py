"""The C++ writer and the documented schema agree: real results, and results the replay backend
makes from them (with an injected crash), validate against docs/results.schema.json."""

import json
import os
import subprocess
from pathlib import Path

import jsonschema
import pytest
from conftest import REPO_ROOT

SCHEMA = json.loads((REPO_ROOT / "docs/results.schema.json").read_text())
REAL = REPO_ROOT / "results/h200-quick/results.json"
PINBENCH = Path(os.environ.get("PINBENCH_EXE", REPO_ROOT / "build/ci-nogpu/harness/pinbench"))


def test_committed_real_results_validate():
    doc = json.loads(REAL.read_text())
    jsonschema.validate(doc, SCHEMA)
    assert doc["backend"] == "cuda"


@pytest.mark.skipif(not PINBENCH.exists(), reason=f"{PINBENCH} is not built (ci/test.sh builds it first)")
def test_replayed_results_validate_and_say_so(tmp_path):
    script = tmp_path / "script.yaml"
    script.write_text(
        "replay_script_version: 1\n"
        "relabel: {driver_release: '999.02'}\n"
        "inject:\n  - {what: crash, runs: 'quick-count/cudaMallocHost/*', repeat: 0}\n"
    )
    out = tmp_path / "replayed.json"
    proc = subprocess.run(
        [
            str(PINBENCH),
            "run",
            "--backend",
            "replay",
            "--from",
            str(REAL),
            "--script",
            str(script),
            "--only",
            "quick-count/*",
            "-o",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 3, proc.stderr  # the injected crash is a failed run
    doc = json.loads(out.read_text())
    jsonschema.validate(doc, SCHEMA)
    assert doc["backend"] == "replay"
    assert doc["replay"]["source"] == str(REAL)
    assert doc["environment"]["driver"]["release"] == "999.02"
    statuses = {r["id"]: r["status"] for r in doc["runs"]}
    assert statuses["quick-count/cudaMallocHost/64MiB/x1/g1"] == "failed"
    assert statuses["quick-count/cudaHostRegister/64MiB/x64/g1"] == "ok"
