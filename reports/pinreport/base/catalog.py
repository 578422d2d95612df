"""The metric catalog the harness exports: every metric a results file can hold, with its unit,
which way is worse, which memory budget its bytes are of and whether it is a headline; every
kind with its report title, place and chart families; and the rule that gives a probe key its
direction and budget (`pinbench metrics --json`: each kind's entries in
harness/src/kinds/<kind>.cpp, the generic ones in harness/src/results/metric_catalog.cpp, the
key rule in harness/src/probes/snapshot.cpp).
Committed as data/metric_catalog.json so pinreport runs without the binary;
reports/tests/test_catalog.py checks the copy against the binary."""

import json
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

CATALOG_VERSION = 3
_HOLES = {"key": r"[A-Za-z0-9_.]+?", "timing": r"\w+?", "bytes": r"[0-9]+", "k": r"[0-9]+"}


@dataclass(frozen=True)
class MetricSpec:
    pattern: str
    kinds: tuple[str, ...]  # ("*",) for every kind
    unit: str
    direction: str  # higher_is_worse, higher_is_better, neither
    headline: bool
    what: str
    budget: str  # dedicated, host, probe (the <key>'s own: probe_keys.describe_key), none
    regex: re.Pattern[str]

    def written_by(self, kind: str | None) -> bool:
        return kind is None or "*" in self.kinds or kind in self.kinds


def _regex(pattern: str) -> re.Pattern[str]:
    parts = re.split(r"<([a-z]+)>", pattern)
    return re.compile("".join(re.escape(p) if i % 2 == 0 else _HOLES[p] for i, p in enumerate(parts)) + r"\Z")


@dataclass(frozen=True)
class ParamEntry:
    """One row of a kind's parameter table (harness/src/scenario/kind_spec.hpp ParamSpec)."""

    name: str
    type: str  # "size", "int", "double", "string", ...
    required: bool
    axis: bool
    fallback: str | int | float | bool | None  # the value where a scenario gives none


@dataclass(frozen=True)
class KindEntry:
    name: str
    report: str  # section, optional_section (shown only where present), cost_and_rule (no section)
    title: str
    charts: tuple[str, ...]  # chart families, registered in render/kind_sections.py
    since_version: int  # the scenario schema version that introduced it
    params: tuple[ParamEntry, ...]  # its parameter table, in the table's order
    allocation_costs: bool  # writes the generic cost.* metrics (after_alloc, after_first_use)
    reservation_rule: bool  # the reservation rule (rule.py) judges its held costs
    quantum_param: str  # a size parameter that quantises its byte metrics, or ""

    def param(self, name: str) -> ParamEntry | None:
        return next((p for p in self.params if p.name == name), None)


@dataclass(frozen=True)
class KeyRule:
    """describe_key()'s rule in harness/src/probes/snapshot.cpp, as the catalog exports it."""

    available_suffixes: tuple[str, ...]
    fixed_suffixes: tuple[str, ...]
    shared_prefixes: tuple[str, ...]
    shared_suffixes: tuple[str, ...]


@cache
def _document() -> dict:
    doc = json.loads(resources.files("pinreport").joinpath("data/metric_catalog.json").read_text(encoding="utf-8"))
    if doc.get("metric_catalog_version") != CATALOG_VERSION:
        raise ValueError(f"metric catalog version {doc.get('metric_catalog_version')!r}, expected {CATALOG_VERSION}")
    return doc


@cache
def specs() -> tuple[MetricSpec, ...]:
    return tuple(
        MetricSpec(
            m["pattern"],
            tuple(m["kinds"].split()),
            m["unit"],
            m["direction"],
            m["headline"],
            m["what"],
            m["budget"],
            _regex(m["pattern"]),
        )
        for m in _document()["metrics"]
    )


@cache
def kind_entries() -> tuple[KindEntry, ...]:
    """Every kind, in the harness's registry order (docs/kinds.md)."""
    return tuple(
        KindEntry(
            k["name"],
            k["report"],
            k["title"],
            tuple(k["charts"]),
            k["since_version"],
            tuple(ParamEntry(p["name"], p["type"], p["required"], p["axis"], p["fallback"]) for p in k["params"]),
            k["allocation_costs"],
            k["reservation_rule"],
            k["quantum_param"],
        )
        for k in _document()["kinds"]
    )


def kind_entry(name: str) -> KindEntry | None:
    return next((k for k in kind_entries() if k.name == name), None)


# The kinds whose held costs the reservation rule judges, as each kind's file says; and the two
# stages a pinned buffer holds device memory at (the metrics `cost.after_alloc.*`,
# `cost.after_first_use.*`). Here, below both, because the rule (analysis/rule.py) and the
# store's history index (store/history_index.py) read them.
RULE_KINDS = frozenset(k.name for k in kind_entries() if k.reservation_rule)
HELD_STAGES = ("cost.after_alloc", "cost.after_first_use")


@dataclass(frozen=True)
class TracedApi:
    """A driver entry point `pinbench trace` records (harness/src/cuda/traced_apis.hpp)."""

    api: str
    family: str  # host_alloc, host_register, vmm_host, pool_host
    effect: str  # acquire, release, pool_reserved (cuda/traced_apis.hpp api_effect)


@cache
def traced_apis() -> tuple[TracedApi, ...]:
    return tuple(TracedApi(a["api"], a["family"], a["effect"]) for a in _document()["trace_apis"])


@cache
def family_api_variants() -> dict[str, tuple[str, ...]]:
    """Each traced family's store API variants whose fits predict its cost, preferred first."""
    return {f: tuple(v) for f, v in _document()["trace_families"].items()}


@cache
def key_rule() -> KeyRule:
    r = _document()["probe_keys"]
    return KeyRule(*(tuple(r[f]) for f in KeyRule.__dataclass_fields__))


@cache
def spec_of(metric: str, kind: str | None = None) -> MetricSpec | None:
    """The first entry (the harness's order) whose pattern matches, for `kind` when given."""
    for s in specs():
        if s.written_by(kind) and s.regex.match(metric):
            return s
    return None
