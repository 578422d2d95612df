"""Typed readers for every input file kind (issue 57, invariant 3): after reading, no code sees a
value its schema did not promise. A trace whose calls[i].address is not an integer, and a
Google Benchmark file (--bench) whose rate is 0, a string or missing, are refused by the reader
with exit 2 and one line naming the file and the field, in every command that reads them.

Before: `int("0x10")`, `int(None)`, `int([1])` on a call's address (exit 4, a traceback, in
`trace`, `advise` and `trace --html`); ZeroDivisionError, TypeError and KeyError on GBps (exit 4 in
`advise`, `trace` and `html`)."""

import copy
import json

import pytest
from builders import make_store
from conftest import REPO_ROOT
from pinreport.cli import main
from schema_pending import until_bounded

TRACE = json.loads((REPO_ROOT / "results/h200-trace/trace-dataloader-w4.json").read_text())
BENCH = json.loads((REPO_ROOT / "results/h200-bench/transfer_bench.json").read_text())
CURRENT = REPO_ROOT / "harness/tests/fixtures/results-validity/accept_base.json"
ROW = "transfer/pinned/h2d/256MiB/iterations:1/repeats:7/manual_time"


def _pool_trace(address):
    """The committed trace, its peak held from a host pool, with one pool allocation whose
    address is `address` (the advice matches pool allocations and frees by address)."""
    doc = copy.deepcopy(TRACE)
    for h in doc["pinned"]["at_peak"]:
        h["api"] = "cuMemAllocFromPoolAsync"
    doc.pop("notes", None)
    call = dict(doc["calls"][0], api="cuMemAllocFromPoolAsync", address=address, t_ms=0.0, result=0)
    doc["calls"].append(call)
    return doc


ADDRESSES = {"hex text": "0x10", "null": None, "a list": [1]}


@pytest.mark.parametrize(
    "address", [pytest.param(k, id=k, marks=until_bounded("trace", _pool_trace(v))) for k, v in ADDRESSES.items()]
)
@pytest.mark.parametrize("command", ["trace", "advise", "trace --html"])
def test_a_call_address_that_is_not_an_integer_is_refused_in_one_line(tmp_path, capsys, command, address):
    path = tmp_path / "trace.json"
    doc = _pool_trace(ADDRESSES[address])
    path.write_text(json.dumps(doc))
    argv = [command.split()[0], str(path)] + (["--html", str(tmp_path / "t.html")] if "html" in command else [])
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, err
    index = len(doc["calls"]) - 1
    assert err.startswith(f"error: {path}: calls[{index}].address: "), err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not (tmp_path / "t.html").exists()


def _bench(gbps):
    doc = copy.deepcopy(BENCH)
    (row,) = [r for r in doc["benchmarks"] if r.get("run_name") == ROW and r.get("aggregate_name") == "median"]
    if gbps is _MISSING:
        del row["GBps"]
    else:
        row["GBps"] = gbps
    return doc, doc["benchmarks"].index(row)


_MISSING = object()
RATES = {"0": 0, "a string": "43.6", "missing": _MISSING}


@pytest.mark.parametrize("gbps", RATES, ids=list(RATES))
@pytest.mark.parametrize("command", ["advise", "trace", "html"])
def test_a_bench_rate_that_is_not_above_0_is_refused_in_one_line(tmp_path, capsys, command, gbps):
    path = tmp_path / "transfer_bench.json"
    doc, index = _bench(RATES[gbps])
    path.write_text(json.dumps(doc))
    trace = str(REPO_ROOT / "results/h200-trace/trace-dataloader-w4.json")
    if command == "html":
        store = make_store(tmp_path / "store")
        argv = ["html", "--store", str(store), "--current", str(CURRENT), "-o", str(tmp_path / "r.html")]
    else:
        argv = [command, trace]
    code = main([*argv, "--bench", str(path)])
    out, err = capsys.readouterr()
    assert code == 2, err
    lines = [line for line in err.splitlines() if str(path) in line]
    assert len(lines) == 1 and lines[0].startswith(f"error: {path}: benchmarks[{index}]"), err
    assert "Traceback" not in err and "internal error" not in err
