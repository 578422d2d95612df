"""A metric named anywhere in pinreport's Python (a string literal, or an f-string with holes)
must be one that some kind writes: a pattern of the harness's catalog (data/metric_catalog.json).
Names are recognised by the catalog's own families (the first part of every pattern), so a new
module or subpackage is covered without listing it here."""

import ast
import itertools
import re

from conftest import REPO_ROOT
from pinreport.base import catalog

PACKAGE = REPO_ROOT / "reports" / "pinreport"
HOLE = "\0"
# What a catalog pattern's hole (<key>, <bytes>, <k>, <timing>) may be filled with to give a name.
FILLERS = ("cuda.free", "nvml.0.used", "1024", "kept")


# Strings in a metric family's spelling that name no metric, each with why.
NOT_METRICS = {
    "cost.held": "rule.py: the stage label of the summed NVML cost across devices, derived, never read",
}


def _families() -> set[str]:
    return {s.pattern.split(".")[0] + "." for s in catalog.specs()}


def _template(node: ast.AST) -> str | None:
    """A string literal as text, an f-string with HOLE for each formatted value; None otherwise."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        parts = [v.value if isinstance(v, ast.Constant) else HOLE for v in node.values]
        return "".join(str(p) for p in parts)
    return None


def _docstrings(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        first = body[0] if isinstance(body, list) and body else None
        if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
            out.add(id(first.value))
    return out


def metric_names(source: str) -> list[str]:
    """The metric-name templates a module holds: strings that begin with a catalog family and
    hold no space (prose and titles do)."""
    tree = ast.parse(source)
    skip = _docstrings(tree)
    inside_fstrings = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    families = tuple(_families())
    out = []
    for node in ast.walk(tree):
        if id(node) in skip or id(node) in inside_fstrings:
            continue
        text = _template(node)
        if text and text.startswith(families) and " " not in text and ":" not in text:
            out.append(text.replace("<key>", HOLE).replace("<dev>", HOLE) + (HOLE if text.endswith(".") else ""))
    return out


def _samples() -> list[str]:
    """Every catalog pattern with each hole filled by each filler: names a kind may write."""
    out = []
    for s in catalog.specs():
        parts = re.split(r"<[a-z]+>", s.pattern)
        for fill in itertools.product(FILLERS, repeat=len(parts) - 1):
            out.append("".join(p + f for p, f in zip(parts[:-1], fill, strict=True)) + parts[-1])
    return out


def is_written(template: str) -> bool:
    """Some name a catalog pattern gives is what the template, its holes filled, can be; or
    begins with it up to a dot (a stage such as cost.after_alloc, whose names go on)."""
    regex = re.compile("".join(".+" if c == HOLE else re.escape(c) for c in template) + r"(\..+)?\Z")
    return template in NOT_METRICS or any(regex.match(n) for n in _samples())


def test_every_metric_named_in_python_is_one_a_kind_writes():
    found, unknown = 0, []
    for path in sorted(PACKAGE.rglob("*.py")):
        for name in metric_names(path.read_text(encoding="utf-8")):
            found += 1
            if not is_written(name):
                unknown.append(f"{path.relative_to(PACKAGE)}: {name.replace(HOLE, '{}')}")
    assert unknown == []
    assert found >= 15  # the claims, the charts and kinds.py name metrics


def test_the_check_finds_a_name_no_kind_writes():
    source = 'X = "register_window.kept_ms_per_transfer"\nY = f"churn.creep.{key}"\nZ = "sweep.cost."\n'
    source += 'S = "cost.after_alloc"\nW = f"workers.{part}_per_worker.{key}"\nV = "churn.creeps"\n'
    names = metric_names(source)
    assert len(names) == 6
    assert [is_written(n) for n in names] == [False, True, True, True, True, False]
    assert metric_names('"""time.kept_per_transfer_ms in a docstring"""\nT = "capacity: a title"') == []
