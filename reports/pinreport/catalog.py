"""The metric catalog the harness exports: every metric a results file can hold, with its unit,
which way is worse and whether it is a headline (`pinbench metrics --json`: each kind's entries
in harness/src/kinds/<kind>.cpp, the generic ones in harness/src/results/metric_catalog.cpp).
Committed as data/metric_catalog.json so pinreport runs without the binary;
reports/tests/test_catalog.py checks the copy against the binary."""

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

CATALOG_VERSION = 1
_HOLES = {"key": r"[A-Za-z0-9_.]+?", "timing": r"\w+?", "bytes": r"[0-9]+", "k": r"[0-9]+"}


@dataclass(frozen=True)
class MetricSpec:
    pattern: str
    kinds: tuple[str, ...]  # ("*",) for every kind
    unit: str
    direction: str  # higher_is_worse, higher_is_better, neither
    headline: bool
    what: str
    regex: re.Pattern[str]

    def written_by(self, kind: str | None) -> bool:
        return kind is None or "*" in self.kinds or kind in self.kinds


def _regex(pattern: str) -> re.Pattern[str]:
    parts = re.split(r"<([a-z]+)>", pattern)
    return re.compile("".join(re.escape(p) if i % 2 == 0 else _HOLES[p] for i, p in enumerate(parts)) + r"\Z")


@cache
def specs() -> tuple[MetricSpec, ...]:
    doc = json.loads(resources.files("pinreport").joinpath("data/metric_catalog.json").read_text(encoding="utf-8"))
    if doc.get("metric_catalog_version") != CATALOG_VERSION:
        raise ValueError(f"metric catalog version {doc.get('metric_catalog_version')!r}, expected {CATALOG_VERSION}")
    return tuple(
        MetricSpec(
            m["pattern"],
            tuple(m["kinds"].split()),
            m["unit"],
            m["direction"],
            m["headline"],
            m["what"],
            _regex(m["pattern"]),
        )
        for m in doc["metrics"]
    )


@cache
def spec_of(metric: str, kind: str | None = None) -> MetricSpec | None:
    """The first entry (the harness's order) whose pattern matches, for `kind` when given."""
    for s in specs():
        if s.written_by(kind) and s.regex.match(metric):
            return s
    return None
