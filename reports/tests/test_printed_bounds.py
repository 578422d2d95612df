"""What is not physical is refused with the schema's own bounds (issue 57, invariant 2): budget
documents and traces as results files are (test_schema_bounds.py), each bound read from the
schema by its reader (base/schema.DocumentSchema), integers as integers. A refused document is
exit 2, one line naming the file and the field, and nothing of it is printed.

Before: a safe_budget of 1e308 printed a 300-digit REGRESSION, 2^63-1 printed 8388608 TiB
(the cap is at most 64 TiB), a pin_s_per_gib of -3 was read; a trace's peak of 2^64-1 and a
cost of -2^63 were printed; an integer written as a float was read (pinbench refuses it)."""

import copy
import json

import pytest
from conftest import REPO_ROOT
from pinreport.cli import main
from schema_pending import until_bounded

BUDGET = json.loads((REPO_ROOT / "results/h100-budget/budget-default.json").read_text())
TRACE = json.loads((REPO_ROOT / "results/h200-trace/trace-dataloader-w4.json").read_text())
TRACE_PATH = REPO_ROOT / "results/h200-trace/trace-dataloader-w4.json"


def _safe_budget(value):
    def change(doc):
        doc["safe_budget"]["bytes"] = value
        doc["families"][0]["safe_budget"] = value

    return change


def _pin_rate(value):
    def change(doc):
        doc["families"][0]["pin_s_per_gib"] = value

    return change


BUDGETS = {
    "safe_budget 1e308": _safe_budget(1e308),
    "safe_budget 2^63-1": _safe_budget(2**63 - 1),
    "safe_budget as a float": _safe_budget(float(BUDGET["safe_budget"]["bytes"])),
    "pin_s_per_gib -3": _pin_rate(-3),
}


def _cases(kind, base, changes):
    out = []
    for name, change in changes.items():
        doc = copy.deepcopy(base)
        change(doc)
        out.append(pytest.param(name, id=name, marks=until_bounded(kind, doc)))
    return out


@pytest.mark.parametrize("case", _cases("budget", BUDGET, BUDGETS))
@pytest.mark.parametrize("command", ["budget-compare", "summary --budget"])
def test_a_budget_outside_its_schemas_bounds_is_refused(tmp_path, capsys, case, command):
    doc = copy.deepcopy(BUDGET)
    BUDGETS[case](doc)
    path = tmp_path / "budget.json"
    path.write_text(json.dumps(doc))
    if command == "budget-compare":
        argv = ["budget-compare", str(REPO_ROOT / "results/h100-budget/budget-default.json"), str(path)]
    else:
        argv = [
            "summary",
            str(REPO_ROOT / "harness/tests/fixtures/results-validity/accept_base.json"),
            "--budget",
            str(path),
        ]
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert err.startswith(f"error: {path}: ") and err.count("\n") == 1, err
    assert "TiB" not in out and "REGRESSION" not in out


def _peak(value):
    def change(doc):
        doc["pinned"]["peak_bytes"] = value

    return change


def _cost(value):
    def change(doc):
        doc["cost_at_peak"]["devices"][0]["cost_bytes"] = value

    return change


TRACES = {
    "peak 2^64-1": _peak(2**64 - 1),
    "cost -2^63": _cost(-(2**63)),
    "peak as a float": _peak(float(TRACE["pinned"]["peak_bytes"])),
}


@pytest.mark.parametrize("case", _cases("trace", TRACE, TRACES))
@pytest.mark.parametrize("command", ["trace", "advise"])
def test_a_trace_outside_its_schemas_bounds_is_refused(tmp_path, capsys, case, command):
    doc = copy.deepcopy(TRACE)
    TRACES[case](doc)
    path = tmp_path / "trace.json"
    path.write_text(json.dumps(doc))
    code = main([command, str(path)])
    out, err = capsys.readouterr()
    assert code == 2, (out, err)
    assert err.startswith(f"error: {path}: ") and err.count("\n") == 1, err
    assert out == ""
