"""Churn charts: the cost after each allocate/free cycle, and after the final wait."""

from pinreport.base.labels import MiB, anchor, probe_label
from pinreport.pipeline.views import ChurnView
from pinreport.render.svg_charts import Chart, Series, line_chart


def churn_charts(views: tuple[ChurnView, ...]) -> list[Chart]:
    """Cost after each allocate/free cycle (cycle_<i> snapshots, median over repeats), and after
    the final wait, per churn run; one chart per scenario."""
    charts = []
    for view in views:
        series = []
        for run in view.runs:
            series.append(Series(f"{run.name} · {probe_label(view.key)}", [(i, c / MiB) for i, c in run.trace]))
            if run.final is not None:
                x, cost = run.final
                series.append(Series(f"{run.name} · after the final wait", [(x, cost / MiB)]))
        charts.append(
            line_chart(
                anchor("churn", view.scenario),
                f"churn trace: {view.scenario}",
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
