"""What is not physical is refused by the results schema with the C++ reader's own bounds (issue
41, class 5): each bound is read here from the C++ source that applies it (the reader of plans,
repeats, metrics and snapshots), so the schema and the harness cannot drift apart, and each is
tried on both readers at the bound (accepted) and one past it (refused).

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

INT_MAX, INT64_MAX, UINT32_MAX, UINT64_MAX = 2**31 - 1, 2**63 - 1, 2**32 - 1, 2**64 - 1
# JsonAt::integer() (harness/src/json/json_reader.hpp) refuses what an int64 cannot hold.
_INTEGER = ("harness/src/json/json_reader.hpp", r"u > static_cast<std::uint64_t>\(INT64_MAX\)", INT64_MAX)
_PLAN = "harness/src/scenario/plan.cpp"
_REPEAT = "harness/src/results/results_json.cpp"
_SCENARIO = "harness/include/pinbench/scenario/scenario.hpp"

# schema path -> (C++ file, the text there that applies the bound, the bound), the maximum.
MAXIMA = {
    ("plan", "size_bytes"): (_PLAN, r'"size_bytes"\)\.unsigned_in\(1, std::numeric_limits<std::uint64_t>', UINT64_MAX),
    ("plan", "count"): (_PLAN, r'"count"\)\.unsigned_in\(1, int_max\)', INT_MAX),
    ("plan", "gpus"): (_PLAN, r'"gpus"\)\.unsigned_in\(1, int_max\)', INT_MAX),
    ("plan", "repeats"): (_PLAN, r'"repeats"\)\.unsigned_in\(1, int_max\)', INT_MAX),
    ("plan", "timeout_s"): (_SCENARIO, r"max_timeout_s = 7 \* 24 \* 3600\.0", 7 * 24 * 3600),
    ("metric", "n"): _INTEGER,
    ("metric", "granule"): _INTEGER,
    ("repeat", "index"): (_REPEAT, r"i > std::numeric_limits<int>::max\(\)", INT_MAX),
    ("repeat", "attempt"): (_REPEAT, r"a > 1000\)", 1000),
    ("repeat", "pid"): (_REPEAT, r"p > std::numeric_limits<std::uint32_t>::max\(\)", UINT32_MAX),
}  # fmt: skip


def _maximum(definition, field):
    node = SCHEMA["$defs"][definition]["properties"][field]
    return node["maximum"]


@pytest.mark.parametrize("where", MAXIMA, ids=[".".join(k) for k in MAXIMA])
def test_the_schemas_maximum_is_the_cpp_readers(where):
    path, applies, bound = MAXIMA[where]
    assert re.search(
        applies, (REPO_ROOT / path).read_text()
    ), f"{path} no longer says {applies!r}: read the bound again"
    assert _maximum(*where) == bound


def test_readings_and_windows_are_int64_as_the_cpp_reader_reads_them():
    assert SCHEMA["$defs"]["reading"]["oneOf"][0]["maximum"] == INT64_MAX
    assert SCHEMA["$defs"]["snapshot"]["properties"]["steady_ns"]["items"]["maximum"] == INT64_MAX
    snapshot = (REPO_ROOT / "harness/src/probes/snapshot.cpp").read_text()
    assert "Reading::of(at.integer())" in snapshot and "w.push_back(v.integer())" in snapshot


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
    bound = MAXIMA[where][2]
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
    path = _variant(tmp_path, where, MAXIMA[where][2])
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
    expected = where + rf"(is not of type 'integer'|is greater than the maximum of {INT64_MAX})"
    assert re.match(expected, err) and err.count("\n") == 1, err
