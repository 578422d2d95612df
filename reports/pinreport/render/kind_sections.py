"""The scenario kinds' sections: per kind present, a table of its headline metrics and its
chart families (the catalog names them, CHART_FAMILIES draws them); the kinds with no run are
named, never drawn from nothing."""

from collections.abc import Callable
from typing import TypedDict

from pinreport.base.labels import anchor
from pinreport.pipeline.views import KindView
from pinreport.render.charts.churn import churn_charts
from pinreport.render.charts.pinnable import pinnable_charts
from pinreport.render.charts.sweep import sweep_charts
from pinreport.render.charts.workers import workers_charts
from pinreport.render.svg_charts import Chart

# The chart families, by the names a kind's catalog entry gives (KindSpec::charts in
# harness/src/kinds/<kind>.cpp); a kind draws its families' charts in its entry's order.
CHART_FAMILIES: dict[str, Callable[[KindView], list[Chart]]] = {
    "churn": lambda v: churn_charts(v.churn),
    "sweep": lambda v: sweep_charts(v.sweep),
    "pinnable": lambda v: pinnable_charts(v.pinnable),
    "workers": lambda v: workers_charts(v.workers),
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


def kind_sections(views: tuple[KindView, ...]) -> list[KindSection]:
    """One section per scenario kind present: a table (run id, status, params, ok repeats,
    median and [min - max] of each headline metric; "not measured" where a run lacks one) and
    the charts that are cheap to draw (churn trace, sweep curve, max pinnable against free VRAM,
    workers against N)."""
    return [
        {
            "kind": v.kind,
            "id": anchor("kind", v.kind),
            "title": v.title,
            "columns": list(v.columns),
            "rows": [
                {
                    "id": r.id,
                    "status": r.status,
                    "reason": r.reason,
                    "params": r.params,
                    "repeats": str(r.repeats),
                    "cells": list(r.cells),
                }
                for r in v.rows
            ],
            "charts": [c for family in v.families for c in CHART_FAMILIES[family](v)],
        }
        for v in views
    ]


def not_measured(kinds: tuple[tuple[str, str], ...]) -> list[NotMeasured]:
    """The scenario kinds with no run here: named, never drawn from nothing."""
    return [{"chart": title, "why": f"no '{kind}' runs in this results file"} for title, kind in kinds]
