"""What is not physical is refused by the results schema, and both readers take the bounds from
it (issue 41, class 5; issue 57: the harness validates against the same file,
harness/src/json/json_schema.cpp, instead of typing the numbers again): each bound is read here
from the schema and tried on both readers at the bound (accepted) and one past it (refused).

Before: a granule of 1e308 (results/h200-main-answer/quick.json, one metric changed) passed
pinreport's validation and changed verdicts, while pinbench refused the file."""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest
from conftest import REPO_ROOT, upgraded
from pinreport.base.errors import BadInputError
from pinreport.cli import main
from pinreport.readers.results import load_results

SCHEMA = json.loads((REPO_ROOT / "docs/results.schema.json").read_text())
PINBENCH = Path(os.environ.get("PINBENCH_EXE", REPO_ROOT / "build/ci-nogpu/harness/pinbench"))
BASE = REPO_ROOT / "harness/tests/fixtures/results-validity/accept_base.json"
QUICK = REPO_ROOT / "results/h200-main-answer/quick.json"

INT64_MAX = 2**63 - 1
FIELDS = [
    ("plan", "size_bytes"), ("plan", "count"), ("plan", "gpus"), ("plan", "repeats"), ("plan", "timeout_s"),
    ("metric", "n"), ("metric", "granule"), ("repeat", "index"), ("repeat", "attempt"), ("repeat", "pid"),
]  # fmt: skip


def _numeric(node):
    """The schema of a number: the node itself, or the branch of a oneOf that bounds it."""
    if "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[1]]
    if "oneOf" in node:
        return next(_numeric(branch) for branch in node["oneOf"] if branch.get("type") != "null")
    return node


def _maximum(definition, field):
    return _numeric(SCHEMA["$defs"][definition]["properties"][field])["maximum"]


MAXIMA = {where: _maximum(*where) for where in FIELDS}

# The harness's readers of these fields hold no copy of a bound: they validate against the
# schema (json/json_schema.hpp) before they read.
_READERS = {
    "harness/src/scenario/plan.cpp": 'embedded_schema_def("results.schema.json", "plan")',
    "harness/src/results/results_json.cpp": 'embedded_schema("results.schema.json")',
}


@pytest.mark.parametrize("path", _READERS)
def test_the_cpp_readers_take_the_bounds_from_the_schema(path):
    text = (REPO_ROOT / path).read_text()
    assert _READERS[path] in text, f"{path} no longer reads the schema"
    for copy in ("unsigned_in(", "numeric_limits<int>::max()", "numeric_limits<std::uint32_t>", "> 1000"):
        assert copy not in text, f"{path} types a bound again: {copy}"


def test_readings_are_sizes_and_windows_int64():
    assert _numeric(SCHEMA["$defs"]["reading"])["maximum"] == SCHEMA["$defs"]["size"]["maximum"] == 64 * 2**40
    assert SCHEMA["$defs"]["snapshot"]["properties"]["steady_ns"]["items"]["maximum"] == INT64_MAX


def _first(doc, where):
    """The object holding the field `where` names, in the first run of the document."""
    run = doc["runs"][0]
    definition = where[0]
    if definition == "plan":
        return run["plan"]
    if definition == "metric":
        return next(iter(run["metrics"].values()))
    return run["repeats"][0]


def _variant(tmp_path, where, value, source=BASE):
    doc = json.loads(source.read_text())
    _first(doc, where)[where[1]] = value
    if where == ("metric", "n"):
        _first(doc, where)["samples"] = None  # (a null list, or n samples; not 2^63 of them)
    path = tmp_path / f"{'.'.join(where)}-{value}.json"
    path.write_text(json.dumps(doc))
    return path


def _pinbench_reads(path):
    done = subprocess.run([str(PINBENCH), "results", "upgrade", str(path), "-o", "-"], capture_output=True, timeout=60)
    return done.returncode == 0


# Past the bound: the next integer, and the float a careless writer would put there.
@pytest.mark.parametrize("where", MAXIMA, ids=[".".join(k) for k in MAXIMA])
def test_past_the_bound_both_readers_refuse(tmp_path, where):
    bound = MAXIMA[where]
    over = bound + 1 if where[1] != "timeout_s" else bound + 0.5
    for value in (over, 1e308):
        if where[1] == "granule" or value != 1e308 or where == ("plan", "size_bytes"):
            path = _variant(tmp_path, where, value)
            refused = re.escape(f".{where[1]}: ") + "|invalid JSON: number out of range"  # 2^64: the strict parser
            with pytest.raises(BadInputError, match=refused):
                load_results(path)
            if PINBENCH.exists():
                assert not _pinbench_reads(path), f"pinbench read {where} = {value}"


@pytest.mark.parametrize("where", MAXIMA, ids=[".".join(k) for k in MAXIMA])
def test_at_the_bound_both_readers_accept(tmp_path, where):
    path = _variant(tmp_path, where, MAXIMA[where])
    load_results(path)
    if PINBENCH.exists():
        assert _pinbench_reads(path), f"pinbench refused {where} at its bound"


def test_a_granule_of_1e308_is_one_line_and_exit_2(tmp_path, capsys):
    doc = json.loads(upgraded(QUICK).read_text())
    metric = next(m for r in doc["runs"] for m in r["metrics"].values() if m["granule"] is not None)
    metric["granule"] = 1e308
    path = tmp_path / "quick.json"
    path.write_text(json.dumps(doc))
    code = main(["summary", str(path)])
    out, err = capsys.readouterr()
    assert code == 2, out + err
    assert out == ""
    # An integer written as a float is refused as such (base/schema.DocumentSchema), or past the bound.
    where = rf'error: {re.escape(str(path))}: runs\[\d+\]\.metrics\["[^"]+"\]\.granule: 1e\+308 '
    refusals = ["is not of type 'integer'", "is not valid under any of the given schemas"]
    refusals.append(f"is greater than the maximum of {MAXIMA['metric', 'granule']}")
    expected = where + "(" + "|".join(re.escape(r) for r in refusals) + ")"
    assert re.match(expected, err) and err.count("\n") == 1, err
