"""Each scenario kind's results (docs/kinds.md): which metrics are each kind's
headline, and how a run's metric summaries read as table cells.

Pure look-ups over results documents; render/kind_sections.py and render/charts/ lay them out
and claims/ judges claims on them. `<key>` in a headline stands for a probe key: the table shows
the dedicated key the report charts (cudaMemGetInfo first) and, beside it, DXGI non-local
(shared memory, another budget) when the run has it. `<dev>` stands for every nvml.<i>.used key.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pinreport.analysis.stats import median
from pinreport.base import catalog
from pinreport.base.probe_keys import cost_between, is_dedicated_key
from pinreport.base.units import format_value
from pinreport.readers.results import ResultsFile
from pinreport.readers.runs import Run, Snapshot

# sweep mode max_pinnable's metrics, as the harness's catalog names them (test_catalog.py checks
# each is a catalog pattern); pinnable.py reads them here.
MAX_PINNABLE = "sweep.max_pinnable"
FREE_BEFORE = "sweep.free_before"  # free VRAM before the search (after the free_target fill)
CAPPED = "sweep.capped"  # ratio: the cap pinned at once (max_pinnable is a lower bound)
OVER_HOST_RAM = "sweep.max_pinnable_over_host_ram"  # ratio

# The kinds with a section of their own, in the harness's registry (docs/kinds.md) order, with
# their titles: the catalog's (harness/src/kinds/<kind>.cpp), never re-typed here. The overhead
# kind is the report's cost, verdict and rule tables.
KINDS: tuple[str, ...] = tuple(k.name for k in catalog.kind_entries() if k.report != "cost_and_rule")

# Kinds a team adds for its own program (the command kind, docs/trace.md): shown where a results
# file has them, never listed as "not measured" where it has none.
OPTIONAL_KINDS = frozenset(k.name for k in catalog.kind_entries() if k.report == "optional_section")

TITLES: dict[str, str] = {k.name: k.title for k in catalog.kind_entries()}
CHARTS: dict[str, tuple[str, ...]] = {k.name: k.charts for k in catalog.kind_entries()}


def _headlines() -> dict[str, tuple[str, ...]]:
    """Each kind's headline columns, in the harness's catalog order (catalog.py): never re-typed
    here. multi_gpu shows its held cost per device (`<dev>`: every nvml.<i>.used key)."""
    out = {}
    for kind in KINDS:
        patterns = [s.pattern for s in catalog.specs() if s.headline and s.written_by(kind) and "*" not in s.kinds]
        if kind == "multi_gpu":
            patterns = [p.replace("<key>", "<dev>") if p.startswith("cost.") else p for p in patterns]
        out[kind] = tuple(patterns)
    return out


HEADLINES: dict[str, tuple[str, ...]] = _headlines()

_NVML_USED = re.compile(r"^nvml\.[0-9]+\.used$")
SHARED_BESIDE = "dxgi.nonlocal.usage"


def runs_of(runs: Iterable[Run], kind: str) -> list[Run]:
    return [r for r in runs if r.plan.kind == kind]


def kinds_present(runs: Iterable[Run]) -> set[str | None]:
    return {r.plan.kind for r in runs}


def keys_for(template: str, metric_names: Iterable[str]) -> set[str]:
    """Probe keys that fill `<key>`/`<dev>` in `template` among the metric names."""
    marker = "<key>" if "<key>" in template else "<dev>"
    head, _, tail = template.partition(marker)
    out = set()
    for name in metric_names:
        if name.startswith(head) and name.endswith(tail) and len(name) > len(head) + len(tail):
            out.add(name[len(head) : len(name) - len(tail)])
    return out


def dedicated_headline(keys: Iterable[str]) -> str | None:
    """cudaMemGetInfo, else the first dedicated-memory key (as the report's charts)."""
    keys = set(keys)
    if "cuda.free" in keys:
        return "cuda.free"
    dedicated = sorted(k for k in keys if is_dedicated_key(k))
    return dedicated[0] if dedicated else None


def dedicated_key(runs: list[Run], prefix: str) -> str | None:
    """The dedicated probe key that fills `<prefix><key>` among the runs' metrics, as the charts
    draw it and the claims judge it: cudaMemGetInfo first (dedicated_headline)."""
    names = {m for r in runs for m in r.metrics}
    return dedicated_headline(keys_for(prefix + "<key>", names))


def worker_context_part(runs: list[Run]) -> tuple[str, str | None]:
    """Which per-worker context metric the runs hold, and its dedicated key: `context` (the
    context alone, results version 3 on) or, in older files, `context_and_workspace` (the context
    read with the worker's GPU-use workspace; kinds.md, workers)."""
    for part in ("context", "context_and_workspace"):
        key = dedicated_key(runs, f"workers.{part}_per_worker.")
        if key is not None:
            return part, key
    return "context", None


def metric_columns(kind: str, runs: list[Run]) -> list[str]:
    """The headline metric names of `kind` that at least one of `runs` has, in headline order."""
    names = {m for r in runs for m in r.metrics}
    out = []
    for template in HEADLINES.get(kind, ()):
        if "<dev>" in template:
            keys = sorted((k for k in keys_for(template, names) if _NVML_USED.match(k)), key=_device_order)
            out.extend(template.replace("<dev>", k) for k in keys)
        elif "<key>" in template:
            keys = keys_for(template, names)
            chosen = [k for k in (dedicated_headline(keys), SHARED_BESIDE if SHARED_BESIDE in keys else None) if k]
            out.extend(template.replace("<key>", k) for k in chosen)
        elif template in names:
            out.append(template)
    return out


def _device_order(key: str) -> int:
    return int(key.split(".")[1])


@dataclass(frozen=True)
class Cell:
    text: str  # "150.00 MiB [148.00 MiB - 152.00 MiB]", or "not measured"
    median: float | None
    unit: str


def cell(run: Run, metric: str) -> Cell:
    """Median and spread (min - max over the ok repeats) of one metric; "not measured" when the
    run has no such metric (never 0)."""
    if metric not in run.metrics:
        return Cell("not measured", None, "")
    m = run.metrics[metric]
    text = format_value(m.median, m.unit)
    if m.low != m.high and m.low is not None and m.high is not None:
        text += f" [{format_value(m.low, m.unit)} - {format_value(m.high, m.unit)}]"
    return Cell(text, m.median, m.unit)


def median_of(run: Run, metric: str) -> float | None:
    return run.metrics[metric].median if metric in run.metrics and run.status == "ok" else None


def granule_of(current: ResultsFile, run: Run, metric: str, key: str | None = None) -> float:
    """The metric's granule, else the null control's granule of its probe key, else 0."""
    g = run.metrics[metric].granule if metric in run.metrics else None
    if g is not None:
        return float(g)
    null = current.controls.granule(key) if key else None
    return null if null is not None else 0.0


def params_text(run: Run) -> str:
    params = run.plan.params
    return ", ".join(f"{k}={params.shown(k)}" for k in params) or "(none)"


def snapshot_trace(run: Run, key: str, prefix: str = "cycle_") -> list[tuple[int, float]]:
    """Per cycle i (snapshot label `<prefix><i>`), the median over the ok repeats of the cost on
    `key` relative to the repeat's after_context snapshot; cycles missing anywhere are left out."""
    per_cycle: dict[int, list[float]] = {}
    repeats = run.ok_repeats
    for r in repeats:
        snaps: dict[str, Snapshot] = {}
        for s in r.snapshots:
            snaps.setdefault(s.label, s)
        base = _snap_reading(snaps.get("after_context"), key)
        if base is None:
            return []
        for label, s in snaps.items():
            if not (label.startswith(prefix) and label[len(prefix) :].isascii() and label[len(prefix) :].isdigit()):
                continue
            value = s.readings.get(key)
            cost = cost_between(key, base, value) if value is not None else None
            if cost is not None:
                per_cycle.setdefault(int(label[len(prefix) :]), []).append(cost)
    out = []
    for i in sorted(per_cycle):
        if len(per_cycle[i]) == len(repeats):
            out.append((i, median(per_cycle[i])))
    return out


def final_cost(run: Run, key: str, label: str = "final") -> float | None:
    """Median over the ok repeats of the cost at snapshot `label` (churn: after the final wait)."""
    values = []
    for r in run.ok_repeats:
        base, value = _snap_reading(r.snapshot("after_context"), key), _snap_reading(r.snapshot(label), key)
        cost = cost_between(key, base, value) if base is not None and value is not None else None
        if cost is None:
            return None
        values.append(cost)
    return median(values) if values else None


def _snap_reading(snapshot: Snapshot | None, key: str) -> int | None:
    return snapshot.readings.get(key) if snapshot is not None else None


_SWEEP_POINT = re.compile(r"^sweep\.cost\.(x?)([0-9]+)\.(.+)$")


def sweep_points(run: Run) -> dict[tuple[str, str], list[tuple[float, float]]]:
    """{(axis, key): [(x, median cost)]} from sweep.cost.<bytes>.<key> (axis "size") and
    sweep.cost.x<k>.<key> (axis "count")."""
    out: dict[tuple[str, str], list[tuple[float, float]]] = {}
    for name in run.metrics:
        match = _SWEEP_POINT.match(name)
        if match:
            axis = "count" if match.group(1) else "size"
            value = run.metrics[name].median
            if value is not None:
                out.setdefault((axis, match.group(3)), []).append((float(match.group(2)), value))
    return {k: sorted(v) for k, v in out.items()}
