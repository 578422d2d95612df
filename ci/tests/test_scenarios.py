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


def _make_schema():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_schema", ROOT / "scenarios" / "make_schema.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_editor_schema_is_what_the_kind_registry_gives():
    done = subprocess.run(
        [os.sys.executable, str(ROOT / "scenarios" / "make_schema.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_the_editor_schema_follows_a_new_kind_and_refuses_a_stale_block():
    make = _make_schema()
    schema = json.loads((ROOT / "scenarios" / "schema.json").read_text())
    kinds = json.loads(make.CATALOG.read_text())["kinds"]
    new = {"name": "new_kind", "since_version": 2, "params": [{"name": "cycles", "required": True}]}
    out = make.generate(schema, [*kinds, new])
    assert out["$defs"]["scenario_keys"]["properties"]["kind"]["enum"][-1] == "new_kind"
    assert out["$defs"]["scenario"]["allOf"][len(kinds)]["then"]["required"] == ["params"]
    assert make.mismatches(out, [*kinds, new]) == ["$defs/params has no block for kind new_kind"]
    out["$defs"]["params"]["new_kind"] = {"properties": {"cycle": {}}}
    assert make.mismatches(out, [*kinds, new]) == ["$defs/params/new_kind names ['cycle'], the kind's table ['cycles']"]
