"""The numbers the report's page draws, computed by the pipeline once (page_report): each chart
family's points, each kind's table cells, the cost and history curves of the store's nights,
the rule's fit lines and the reserve at the table's sizes. render/ lays them out (titles, axes,
geometry) and computes nothing: its charts only read these values.

Points are in the quantities measured (bytes, counts, ratios); render/ scales them for the axes.
"""

import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from pinreport.analysis import kind_results, pinnable_fit
from pinreport.analysis.fit import CostFit, FitKey, probe_family, recommend
from pinreport.analysis.history import Night, rule_kind_groups
from pinreport.analysis.rule import RuleResult, RuleVerdict, is_judged_key, is_shared_key
from pinreport.base.labels import GiB, headline_key
from pinreport.readers.runs import Run
from pinreport.readers.store_key import StoreKey

Points = tuple[tuple[float, float], ...]  # (x, y), in the order drawn


# --- the scenario kinds' sections --------------------------------------------------------------


@dataclass(frozen=True)
class ChurnRun:
    name: str  # its api and params
    trace: Points  # (cycle, cost in bytes after its free)
    final: tuple[float, float] | None  # (the cycle after the last, the cost after the final wait)


@dataclass(frozen=True)
class ChurnView:
    scenario: str
    key: str  # the probe key the costs are read on
    runs: tuple[ChurnRun, ...]


def churn_views(runs: Sequence[Run]) -> tuple[ChurnView, ...]:
    """Per scenario, the cost after each allocate/free cycle (cycle_<i> snapshots, median over
    the repeats) and after the final wait, of each ok churn run."""
    by_scenario: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        if run.status == "ok":
            by_scenario[run.plan.scenario].append(run)
    out = []
    for scenario, group in sorted(by_scenario.items()):
        key = kind_results.dedicated_key(group, "churn.creep.") or "cuda.free"
        views = []
        for run in group:
            trace = kind_results.snapshot_trace(run, key)
            if not trace:
                continue
            final = kind_results.final_cost(run, key)
            views.append(
                ChurnRun(
                    f"{run.plan.api} {kind_results.params_text(run)}",
                    tuple((float(i), float(c)) for i, c in trace),
                    (float(trace[-1][0] + 1), final) if final is not None else None,
                )
            )
        if views:
            out.append(ChurnView(scenario, key, tuple(views)))
    return tuple(out)


@dataclass(frozen=True)
class SweepCurve:
    run_id: str
    axis: str  # "size" (sweep.cost.<bytes>.<key>) or "count" (sweep.cost.x<k>.<key>)
    curves: tuple[tuple[str, Points], ...]  # (probe key, (x, cost in bytes)): the dedicated one, then shared


def sweep_views(runs: Sequence[Run]) -> tuple[SweepCurve, ...]:
    """Cost against pinned size (size_curve) or buffer count (count_curve), per ok sweep run."""
    out = []
    for run in runs:
        if run.status != "ok":
            continue
        points = kind_results.sweep_points(run)
        for axis in ("size", "count"):
            keys = {k for a, k in points if a == axis}
            head = kind_results.dedicated_headline(keys)
            shared = kind_results.SHARED_BESIDE if kind_results.SHARED_BESIDE in keys else None
            shown = [k for k in (head, shared) if k]
            if shown:
                out.append(SweepCurve(run.id, axis, tuple((k, tuple(points[(axis, k)])) for k in shown)))
    return tuple(out)


@dataclass(frozen=True)
class PinnableApi:
    api: str
    free: Points  # (free VRAM, max pinnable) of the uncapped points, bytes
    bounded: Points  # the capped or timed-out points: lower bounds
    fit: tuple[float, float, float, float] | None  # (slope, intercept, lowest and highest free x) where fitted


@dataclass(frozen=True)
class PinnableView:
    apis: tuple[PinnableApi, ...]
    top: float  # the most free VRAM of any point, bytes


def pinnable_view(runs: Sequence[Run]) -> PinnableView | None:
    """Max pinnable against free VRAM before the search (pinnable_fit.py), per api, with its fit
    over the uncapped points; None without a point."""
    by_api = pinnable_fit.collect_runs(runs)
    if not by_api:
        return None
    apis = []
    for api, points in by_api.items():
        free = tuple((p.free_before, p.max_pinnable) for p in points if not p.lower_bound)
        bounded = tuple((p.free_before, p.max_pinnable) for p in points if p.lower_bound)
        fit = pinnable_fit.fit_slope(points)
        line = None
        if fit.slope is not None and fit.intercept is not None and free:
            line = (fit.slope, fit.intercept, min(x for x, _ in free), max(x for x, _ in free))
        apis.append(PinnableApi(api, free, bounded, line))
    top = max(p.free_before for points in by_api.values() for p in points)
    return PinnableView(tuple(apis), top)


@dataclass(frozen=True)
class WorkersView:
    scenario: str
    api: str
    key: str
    parts: tuple[tuple[str, Points], ...]  # ("context" ..., (N, cost per worker in bytes))


def workers_views(runs: Sequence[Run]) -> tuple[WorkersView, ...]:
    """Per-worker context cost and per-worker pinned cost against the number of workers (the
    per_process variant), per scenario and api."""
    groups: dict[tuple[str, str], list[Run]] = defaultdict(list)
    for run in runs:
        if run.status == "ok" and run.plan.params.get("variant", "per_process") == "per_process":
            groups[(run.plan.scenario, run.plan.api or "")].append(run)
    out = []
    for (scenario, api), group in sorted(groups.items()):
        context, key = kind_results.worker_context_part(group)
        key = key or kind_results.dedicated_key(group, "workers.pinned_per_worker.")
        if key is None:
            continue
        parts = []
        for part in (context, "pinned"):
            pts = []
            for run in group:
                value = kind_results.median_of(run, f"workers.{part}_per_worker.{key}")
                workers = run.plan.params.integer("workers")
                if value is not None and workers is not None:
                    pts.append((float(workers), value))
            if pts:
                parts.append((part, tuple(pts)))
        if parts:
            out.append(WorkersView(scenario, api, key, tuple(parts)))
    return tuple(out)


@dataclass(frozen=True)
class KindRowView:
    id: str
    status: str
    reason: str
    params: str
    repeats: int  # ok repeats
    cells: tuple[str, ...]  # each headline column's "median [min - max]" ("" where the run is not ok)


@dataclass(frozen=True)
class KindView:
    """One scenario kind present in the file: its headline table and its chart families' data."""

    kind: str
    title: str
    columns: tuple[str, ...]
    rows: tuple[KindRowView, ...]
    families: tuple[str, ...]  # its chart families, in the catalog's order
    churn: tuple[ChurnView, ...] = ()
    sweep: tuple[SweepCurve, ...] = ()
    pinnable: PinnableView | None = None
    workers: tuple[WorkersView, ...] = ()


def kind_views(runs: Sequence[Run]) -> tuple[KindView, ...]:
    """One view per scenario kind present, in the registry's order (docs/kinds.md)."""
    out = []
    for kind in kind_results.KINDS:
        of_kind = kind_results.runs_of(runs, kind)
        if not of_kind:
            continue
        columns = kind_results.metric_columns(kind, of_kind)
        rows = tuple(
            KindRowView(
                run.id,
                run.status or "",
                run.reason,
                kind_results.params_text(run),
                len(run.ok_repeats),
                tuple(kind_results.cell(run, m).text if run.status == "ok" else "" for m in columns),
            )
            for run in of_kind
        )
        families = kind_results.CHARTS[kind]
        out.append(
            KindView(
                kind,
                kind_results.TITLES[kind],
                tuple(columns),
                rows,
                families,
                churn=churn_views(of_kind) if "churn" in families else (),
                sweep=sweep_views(of_kind) if "sweep" in families else (),
                pinnable=pinnable_view(of_kind) if "pinnable" in families else None,
                workers=workers_views(of_kind) if "workers" in families else (),
            )
        )
    return tuple(out)


def kinds_not_measured(runs: Sequence[Run]) -> tuple[tuple[str, str], ...]:
    """(title, kind) of every scenario kind with no run here: named, never drawn from nothing."""
    present = kind_results.kinds_present(runs)
    return tuple(
        (kind_results.TITLES[k], k)
        for k in kind_results.KINDS
        if k not in present and k not in kind_results.OPTIONAL_KINDS
    )


# --- the store's nights ------------------------------------------------------------------------


@dataclass(frozen=True)
class CostView:
    """Held cost against pinned size (or buffer count) of one scenario and api: one curve per
    driver release and probe key."""

    scenario: str
    api: str
    axis: str  # "size", or "count" where only the count varies
    curves: tuple[tuple[str, str, Points], ...]  # (release as named, probe key, (x, held cost bytes))


def _x_axis(runs: list[Run]) -> str:
    """ "size" when the sizes vary (or nothing varies), "count" when only the count does."""
    sizes = {r.plan.size for r in runs}
    counts = {r.plan.count for r in runs}
    return "count" if len(sizes) == 1 and len(counts) > 1 else "size"


def cost_views(per_release: Sequence[Night]) -> tuple[CostView, ...]:
    """The latest night of each driver release, per scenario and api (the cost charts)."""
    groups = [rule_kind_groups(n.runs) for n in per_release]
    current_groups = groups[-1] if per_release else {}
    keys = sorted(set().union(*[set(g) for g in groups])) if per_release else []
    out = []
    for scenario, api in keys:
        runs_cur = current_groups.get((scenario, api)) or next(
            g[(scenario, api)] for g in groups if (scenario, api) in g
        )
        axis = _x_axis([run for run, _ in runs_cur])
        curves = []
        for n, g in zip(per_release, groups, strict=True):
            points: dict[str, list[tuple[float, float]]] = defaultdict(list)
            for run, costs in g.get((scenario, api), []):
                x = run.plan.count if axis == "count" else run.plan.size
                if x is None:
                    continue
                for key, cost in costs.items():
                    if is_judged_key(key) or is_shared_key(key):
                        points[key].append((float(x), cost.median))
            curves += [(n.release_name, key, tuple(points[key])) for key in sorted(points)]
        out.append(CostView(scenario, api, axis, tuple(curves)))
    return tuple(out)


@dataclass(frozen=True)
class HistoryCurve:
    size: int  # the run's pinned size per buffer
    count: int | None
    key: str  # the headline probe key
    points: Points  # (night index, held cost bytes)


@dataclass(frozen=True)
class HistoryView:
    scenario: str
    api: str
    curves: tuple[HistoryCurve, ...]


@dataclass(frozen=True)
class NightsView:
    """The store's nights of the current file's group, oldest first (the history charts)."""

    labels: tuple[str, ...]  # each night's start, "(replayed)" where it is
    changes: tuple[tuple[int, str], ...]  # (night index, release as named) where the release changes
    histories: tuple[HistoryView, ...]


def nights_view(all_nights: Sequence[Night]) -> NightsView:
    """Per scenario and api, the held cost on the headline probe of each run across nights."""
    values: dict[tuple[str, str], dict[tuple[int, int | None, str], list[tuple[float, float]]]] = defaultdict(
        lambda: defaultdict(list)
    )
    if len(all_nights) >= 2:
        for i, n in enumerate(all_nights):
            for (scenario, api), runs in rule_kind_groups(n.runs).items():
                for run, costs in runs:
                    head = headline_key(set(costs))
                    if head is None:
                        continue
                    curve = (run.plan.size or 0, run.plan.count, head)
                    values[(scenario, api)][curve].append((float(i), costs[head].median))
    histories = tuple(
        HistoryView(scenario, api, tuple(HistoryCurve(s, c, k, tuple(p)) for (s, c, k), p in curves.items()))
        for (scenario, api), curves in sorted(values.items())
    )
    changes = tuple(
        (i, n.release_name) for i, n in enumerate(all_nights) if i > 0 and n.release != all_nights[i - 1].release
    )
    labels = tuple(n.label + (" (replayed)" if n.replayed else "") for n in all_nights)
    return NightsView(labels, changes, histories)


# --- the reservation rule and its fits ---------------------------------------------------------


@dataclass(frozen=True)
class RuleFitLine:
    api: str
    confidence: float
    predicted: Points  # (pinned bytes, predicted cost / pinned) on a log grid
    bound: Points  # (pinned bytes, prediction bound / pinned)
    reserve: tuple[float, float]  # (the largest pinned bytes measured, the bound's ratio there)


@dataclass(frozen=True)
class RuleView:
    """One scenario's measured ratios on the headline probe per api, with the fit of the api that
    asks for the most."""

    scenario: str
    key: str  # the headline probe key
    ratios: tuple[tuple[str, Points], ...]  # (api, (pinned bytes, cost / pinned))
    fit: RuleFitLine | None


def _log_grid(lo: float, hi: float, n: int = 12) -> list[float]:
    if lo <= 0 or hi <= lo:
        return [x for x in (lo, hi) if x > 0]
    a, b = math.log2(lo), math.log2(hi)
    return [2 ** (a + (b - a) * i / (n - 1)) for i in range(n)]


def rule_views(rule: Sequence[RuleResult], fits: dict[FitKey, CostFit]) -> tuple[RuleView, ...]:
    by_scenario: dict[str, list[RuleResult]] = defaultdict(list)
    for r in rule:
        by_scenario[r.scenario].append(r)
    out = []
    for scenario, results in sorted(by_scenario.items()):
        keys = {r.key for r in results if r.verdict != RuleVerdict.NOT_JUDGED}
        head = headline_key(keys)
        if head is None:
            continue
        series: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for r in results:
            if r.key == head and r.verdict != RuleVerdict.NOT_JUDGED:
                series[r.api].append((float(r.pinned), r.ratio))
        xs = sorted({x for pts in series.values() for x, _ in pts})
        fit_line = None
        candidates = [
            (fk, f)
            for fk, f in fits.items()
            if fk.family == probe_family(head) and fk.api in series and f.usable and not f.below_resolution
        ]
        if candidates and xs:
            fk, f = max(candidates, key=lambda kv: kv[1].upper_bound(xs[-1]))
            grid = _log_grid(xs[0], xs[-1])
            fit_line = RuleFitLine(
                fk.api,
                f.confidence,
                tuple((x, f.predict(x) / x) for x in grid),
                tuple((x, f.upper_bound(x) / x) for x in grid),
                (xs[-1], f.upper_bound(xs[-1]) / xs[-1]),
            )
        out.append(RuleView(scenario, head, tuple((api, tuple(p)) for api, p in sorted(series.items())), fit_line))
    return tuple(out)


RESERVE_SIZES = (1 * GiB, 4 * GiB)  # the reserve table's sizes


@dataclass(frozen=True)
class ReserveRow:
    """What the fitted rule recommends reserving for one api, per GPU, at RESERVE_SIZES."""

    api: str
    family: str  # the probe family that asks for the most
    per_gpu: tuple[tuple[int, float | None], ...]  # (pinned size, bytes to reserve)
    notes: tuple[str, ...]
    ratio: float  # the reserve over the pinned bytes at the largest size


def reserve_rows(fits: dict[FitKey, CostFit], key: StoreKey) -> tuple[ReserveRow, ...]:
    recs_at = {size: recommend(fits, size, 1, {key.group: key.release}) for size in RESERVE_SIZES}
    rows = []
    for rec in recs_at[RESERVE_SIZES[-1]]:
        per_gpu = []
        for size in RESERVE_SIZES:
            match = [r for r in recs_at[size] if r.api == rec.api]
            per_gpu.append((size, match[0].per_gpu if match else None))
        rows.append(ReserveRow(rec.api, rec.family, tuple(per_gpu), rec.notes, rec.per_gpu / RESERVE_SIZES[-1]))
    return tuple(rows)
