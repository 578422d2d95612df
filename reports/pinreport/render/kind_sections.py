"""The scenario kinds' sections: per kind present, a table of its headline metrics and its
chart families (the catalog names them, CHART_FAMILIES draws them); the kinds with no run are
named, never drawn from nothing."""

from collections.abc import Callable
from typing import TypedDict

from pinreport.analysis import kind_results
from pinreport.base.labels import anchor
from pinreport.readers.runs import Run
from pinreport.render.charts.churn import churn_charts
from pinreport.render.charts.pinnable import pinnable_charts
from pinreport.render.charts.sweep import sweep_charts
from pinreport.render.charts.workers import workers_charts
from pinreport.render.svg_charts import Chart

# The chart families, by the names a kind's catalog entry gives (KindSpec::charts in
# harness/src/kinds/<kind>.cpp); a kind draws its families' charts in its entry's order.
CHART_FAMILIES: dict[str, Callable[[list[Run]], list[Chart]]] = {
    "churn": churn_charts,
    "sweep": sweep_charts,
    "pinnable": pinnable_charts,
    "workers": workers_charts,
}


class KindRow(TypedDict):
    id: str
    status: str
    reason: str
    params: str
    repeats: str
    cells: list[str]


class KindSection(TypedDict):
    kind: str
    id: str
    title: str
    columns: list[str]
    rows: list[KindRow]
    charts: list[Chart]


class NotMeasured(TypedDict):
    chart: str
    why: str


def kind_sections(runs: tuple[Run, ...]) -> list[KindSection]:
    """One section per scenario kind present: a table (run id, status, params, median and
    [min - max] of each headline metric; "not measured" where a run lacks one) and the charts
    that are cheap to draw (churn trace, sweep curve, max pinnable against free VRAM, workers
    against N)."""
    out: list[KindSection] = []
    for kind in kind_results.KINDS:
        of_kind = kind_results.runs_of(runs, kind)
        if not of_kind:
            continue
        columns = kind_results.metric_columns(kind, of_kind)
        rows: list[KindRow] = []
        for run in of_kind:
            ok = run.status == "ok"
            rows.append(
                {
                    "id": run.id,
                    "status": run.status or "",
                    "reason": run.reason,
                    "params": kind_results.params_text(run),
                    "repeats": str(len(run.ok_repeats)),
                    "cells": [kind_results.cell(run, m).text if ok else "" for m in columns],
                }
            )
        out.append(
            {
                "kind": kind,
                "id": anchor("kind", kind),
                "title": kind_results.TITLES[kind],
                "columns": columns,
                "rows": rows,
                "charts": [c for family in kind_results.CHARTS[kind] for c in CHART_FAMILIES[family](of_kind)],
            }
        )
    return out


def not_measured(runs: tuple[Run, ...]) -> list[NotMeasured]:
    """The scenario kinds with no run here: named, never drawn from nothing."""
    present = kind_results.kinds_present(runs)
    return [
        {"chart": kind_results.TITLES[k], "why": f"no '{k}' runs in this results file"}
        for k in kind_results.KINDS
        if k not in present and k not in kind_results.OPTIONAL_KINDS
    ]
