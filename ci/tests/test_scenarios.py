"""Every shipped scenario file: valid for editors (scenarios/schema.json) and for pinbench itself."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))


def _load(path: Path):
    from ruamel.yaml import YAML  # comes with check-jsonschema

    return YAML(typ="safe").load(path.read_text())


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_scenario_matches_the_editor_schema(path):
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "scenarios" / "schema.json").read_text())
    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(_load(path)), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.name)
def test_scenario_plans(path):
    pinbench = Path(os.environ.get("PINBENCH_BIN", ROOT / "build" / "ci-nogpu" / "harness" / "pinbench"))
    if not pinbench.is_file():
        pytest.skip(f"{pinbench} is not built")
    done = subprocess.run([str(pinbench), "plan", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().splitlines()[-1].endswith("repeats")
