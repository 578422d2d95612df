"""A results file that is not complete is worded as what pinbench recorded:
stopped by a signal (`interrupted` names it), nothing measured (`controls.skipped`, every run
failed with the reason: no CUDA device, no driver), or neither recorded. Before: all three were
"the run was interrupted", and a run on a machine without a driver read as if cancelled."""

import pytest
from builders import make_store, results_doc, run_doc, write_json
from pinreport.cli import main


def _incomplete(tmp_path, change):
    doc = results_doc([run_doc()])
    doc["complete"] = False
    doc["finished_at"] = ""
    change(doc)
    return write_json(tmp_path / "r.json", doc)


def _no_device(doc):
    """As fail_every_run() in harness/src/run/run_setup.cpp writes it."""
    doc["controls"] = {"skipped": "no CUDA device"}
    for r in doc["runs"]:
        r.update(status="failed", reason="no CUDA device", repeats=[], metrics={})


def _signal(doc):
    doc["interrupted"] = {"signal": "SIGINT", "at": "2025-06-01T10:05:00Z", "run_id": None, "repeat": None}


@pytest.mark.parametrize(
    ("change", "said"),
    [
        (_no_device, "nothing was measured: no CUDA device (complete is false)"),
        (_signal, "the run was interrupted by SIGINT; pinbench run --resume continues it (complete is false)"),
        (lambda doc: None, "the run did not finish (no interruption recorded) (complete is false)"),
    ],
    ids=["no device", "a signal", "nothing recorded"],
)
@pytest.mark.parametrize("command", ["summary", "compare"])
def test_an_incomplete_file_says_what_happened(tmp_path, capsys, change, said, command):
    path = _incomplete(tmp_path, change)
    if command == "summary":
        code = main(["summary", str(path)])
    else:
        store = make_store(tmp_path / "store")
        code = main(["compare", "--store", str(store), "--current", str(path)])
    out = capsys.readouterr().out
    assert code == 3
    assert f"{path}: {said}" in out, out
    if change is _no_device:
        assert "interrupted" not in out
