"""Property (Hypothesis) of issue 57's invariants 2 and 8 over budget documents and traces at
and past their schema's bounds: the committed documents with numbers replaced by edge values
(each bound the schema writes, one past it, the same number written as a float, 2^63-1, 2^64-1,
-2^63, 1e308, -3). Whatever the document, the command ends with a documented exit code and no
traceback; a refused document is one line naming the file, with nothing printed; a read one
prints no size above the schema's largest size and no number of more than 20 digits.

Before (c67c4a8): a safe_budget of 1e308 printed a 300-digit REGRESSION, 2^63-1 printed
8388608 TiB; a trace's peak of 2^64-1 and a cost of -2^63 were printed.
Bounded for CI by the `ci` profile (conftest.py); PINREPORT_FUZZ=nightly runs far more examples."""

import contextlib
import io
import json
import re
import tempfile
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from conftest import REPO_ROOT  # noqa: E402
from fuzz_values import paths  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from pinreport.base.schema import (  # noqa: E402
    budget_json_schema_text,
    results_json_schema_text,
    schema_of,
    trace_json_schema_text,
)
from pinreport.cli import main  # noqa: E402

DOCUMENTED = {0, 1, 2, 3}
BUDGET_PATH = REPO_ROOT / "results/h100-budget/budget-default.json"
TRACE_PATH = REPO_ROOT / "results/h200-trace/trace-dataloader-w4.json"
CURRENT = REPO_ROOT / "harness/tests/fixtures/results-validity/accept_base.json"
DOCS = {"budget": json.loads(BUDGET_PATH.read_text()), "trace": json.loads(TRACE_PATH.read_text())}
_SETTINGS = settings(suppress_health_check=[HealthCheck.too_slow])

_UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40, "PiB": 2**50, "EiB": 2**60}
_SIZE = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?) ?(B|KiB|MiB|GiB|TiB|PiB|EiB)\b")
_NUMBER = re.compile(r"\d+")
MOST_DIGITS = 20  # 2^64 has 20: no number pinreport prints from a bounded field is longer


def _bounds(text: str) -> list:
    """Every minimum and maximum a schema writes."""
    found: list = []

    def walk(node):
        if isinstance(node, dict):
            found.extend(v for k, v in node.items() if k in ("minimum", "maximum", "exclusiveMinimum"))
            for v in node.values():
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    walk(json.loads(text))
    return [v for v in found if isinstance(v, int | float) and not isinstance(v, bool)]


def _largest_size() -> int | None:
    """The results schema's largest size (its $defs.size maximum), which every size a budget or a
    trace holds refers to; None where the schema writes none yet."""
    size = json.loads(results_json_schema_text()).get("$defs", {}).get("size", {})
    return size.get("maximum")


_SCHEMA_BOUNDS = sorted({b for t in (budget_json_schema_text, trace_json_schema_text) for b in _bounds(t())}, key=float)
EXTREMES = [2**63 - 1, 2**64 - 1, -(2**63), 1e308, -3, 0]
EDGES = [*_SCHEMA_BOUNDS, *(b + 1 for b in _SCHEMA_BOUNDS), *EXTREMES]


def _numeric_paths(doc) -> list[tuple]:
    def at(path):
        node = doc
        for p in path:
            node = node[p]
        return node

    return [p for p in paths(doc) if isinstance(at(p), int | float) and not isinstance(at(p), bool)]


# The members the outputs show (a budget's sizes and rates, a trace's peak and costs): drawn as
# twice as often as all the others together; the extremes as often as the schema's edges.
SHOWN = {"bytes", "safe_budget", "peak_bytes", "cost_bytes", "pin_s_per_gib", "touch_s_per_gib", "vram_cost_at_budget"}


@st.composite
def edged(draw, kind: str) -> dict:
    """The committed `kind` document with 1 to 3 numbers replaced by edge values."""
    doc = json.loads(json.dumps(DOCS[kind]))
    where = _numeric_paths(doc)
    shown = [p for p in where if p[-1] in SHOWN and "phases" not in p]  # (not a phase's raw data)
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(shown) | st.sampled_from(shown) | st.sampled_from(where))
        node = doc
        for p in path[:-1]:
            node = node[p]
        old = node[path[-1]]
        node[path[-1]] = draw(st.sampled_from([*EXTREMES, float(old)]) | st.sampled_from(EDGES))
    return doc


def _run(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(argv)
    return code, out.getvalue(), err.getvalue()


def _check(kind: str, doc: dict, argv_of) -> None:
    with tempfile.TemporaryDirectory() as d:
        path = Path(d, f"{kind}.json")
        path.write_text(json.dumps(doc))
        code, out, err = _run(argv_of(str(path)))
        assert code in DOCUMENTED, (code, err)
        assert "Traceback" not in err and "internal error" not in err, err
        if not schema_of(kind).passes(doc):
            assert code == 2, (code, out, err)
            assert err.startswith(f"error: {path}: ") and err.count("\n") == 1, err
            assert str(path) not in out or out.count("\n") <= 1, out  # nothing of it is printed
            return
        longest = max((len(n) for n in _NUMBER.findall(out)), default=0)
        assert longest <= MOST_DIGITS, out
        largest = _largest_size()
        if largest is not None:
            for number, unit in _SIZE.findall(out):
                assert float(number) * _UNITS[unit] <= largest * 1.01, (number, unit, out)


@_SETTINGS
@given(doc=edged("budget"), command=st.sampled_from(["budget-compare", "summary"]))
def test_a_budget_at_or_past_its_bounds_is_refused_or_printed_within_them(doc, command):
    def argv(path):
        if command == "budget-compare":
            return ["budget-compare", str(BUDGET_PATH), path]
        return ["summary", str(CURRENT), "--budget", path]

    _check("budget", doc, argv)


@_SETTINGS
@given(doc=edged("trace"), command=st.sampled_from(["trace", "advise"]))
def test_a_trace_at_or_past_its_bounds_is_refused_or_printed_within_them(doc, command):
    _check("trace", doc, lambda path: [command, path])
