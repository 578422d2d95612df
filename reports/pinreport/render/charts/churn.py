"""Churn charts: the cost after each allocate/free cycle, and after the final wait."""

from collections import defaultdict

from pinreport.analysis import kind_results
from pinreport.base.labels import MiB, anchor, probe_label
from pinreport.readers.runs import Run
from pinreport.render.svg_charts import Chart, Series, line_chart


def churn_charts(runs: list[Run]) -> list[Chart]:
    """Cost after each allocate/free cycle (cycle_<i> snapshots, median over repeats), and after
    the final wait, per churn run; one chart per scenario."""
    by_scenario: dict[str, list[Run]] = defaultdict(list)
    for run in runs:
        if run.status == "ok":
            by_scenario[run.plan.scenario].append(run)
    charts = []
    for scenario, group in sorted(by_scenario.items()):
        key = kind_results.dedicated_key(group, "churn.creep.") or "cuda.free"
        series = []
        for run in group:
            trace = kind_results.snapshot_trace(run, key)
            if not trace:
                continue
            name = f"{run.plan.api} {kind_results.params_text(run)}"
            series.append(Series(f"{name} · {probe_label(key)}", [(float(i), c / MiB) for i, c in trace]))
            final = kind_results.final_cost(run, key)
            if final is not None:
                series.append(Series(f"{name} · after the final wait", [(float(trace[-1][0] + 1), final / MiB)]))
        if series:
            charts.append(
                line_chart(
                    anchor("churn", scenario),
                    f"churn trace: {scenario}",
                    "allocate/free cycle",
                    "cost after the free (MiB)",
                    series,
                    x_format=lambda v: f"{v:g}",
                    y_format=lambda v: f"{v:g}",
                    note="Cost relative to after_context, median over the ok repeats; "
                    "the single point after the last cycle is the snapshot after the final wait.",
                )
            )
    return charts
