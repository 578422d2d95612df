"""`pinreport trace` validates its input as results files are validated:
strict JSON, then docs/trace.schema.json; exit 2 and "FILE: FIELD PATH: message" naming the
field. Before: a trace whose `calls` is a string, whose `bytes` is "512MiB" or whose
`cost_at_peak` is null ended in a traceback (exit 4)."""

import json

import pytest
from builders import make_store
from conftest import REPO_ROOT
from pinreport.cli import main
from pinreport.readers.trace import load_trace

TRACES = sorted((REPO_ROOT / "results/h200-trace").glob("trace-*.json"))
BASE = REPO_ROOT / "results/h200-trace/trace-pin-each-api.json"


def test_every_committed_trace_is_valid():
    assert TRACES
    for path in TRACES:
        load_trace(path)


def _set(doc, path, value):
    *parents, last = path
    for p in parents:
        doc = doc[p]
    doc[last] = value


CASES = [
    (("calls",), "every call", "calls: 'every call' is not of type 'array'"),
    (("calls", 0, "bytes"), "512MiB", "calls[0].bytes: '512MiB' is not of type 'integer'"),
    (("cost_at_peak",), None, "cost_at_peak: None is not of type 'object'"),
    (("pinned", "peak_bytes"), -1, "pinned.peak_bytes: -1 is less than the minimum of 0"),
    (("pinned", "peak_by_family", "host_alloc"), "1GiB", "pinned.peak_by_family.host_alloc: '1GiB' is not"),
    (("pinned", "timeline", 0), ["a", 1], "pinned.timeline[0][0]: 'a' is not of type 'number'"),
    (("cost_at_peak", "devices", 0, "nvml_index"), "0", "cost_at_peak.devices[0].nvml_index: '0' is not"),
    (("device", "samples", 0, "devices", 0, "processes"), {"abc": 1}, "device.samples[0].devices[0].processes"),
    (("status",), [], "status: [] is not of type 'object'"),
    (("tracing", "processes", 0, "pid"), 1.5, "tracing.processes[0].pid: 1.5 is not of type 'integer'"),
    (("notes", "main_pid"), "me", "notes.main_pid: 'me' is not of type 'integer'"),
]


@pytest.mark.parametrize(("path", "value", "says"), CASES, ids=[".".join(map(str, c[0])) for c in CASES])
def test_a_bad_field_is_named_with_exit_2(tmp_path, capsys, path, value, says):
    doc = json.loads(BASE.read_text())
    _set(doc, path, value)
    bad = tmp_path / "trace.json"
    bad.write_text(json.dumps(doc))
    store = make_store(tmp_path / "store")
    code = main(["trace", str(bad), "--store", str(store)])
    out, err = capsys.readouterr()
    assert code == 2, err
    assert err.startswith(f"error: {bad}: {says}"), err
    assert err.count("\n") == 1 and out == ""


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (b'{"schema": "pinbench-trace", "version": 1, "calls": NaN}', "invalid JSON: NaN is not a JSON number"),
        (b'{"schema": "pinbench-trace", "version": true}', "trace version True is not understood"),
        (b"[1, 2]", "not a pinbench trace"),
        (b'{"schema": "pinbench-trace", "version": 1}', "'status' is a required property"),
    ],
)
def test_a_bad_document_is_named_with_exit_2(tmp_path, capsys, text, says):
    bad = tmp_path / "trace.json"
    bad.write_bytes(text)
    code = main(["trace", str(bad), "--store", str(make_store(tmp_path / "store"))])
    err = capsys.readouterr().err
    assert code == 2 and says in err and err.count("\n") == 1, err
