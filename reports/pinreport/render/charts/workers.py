"""Workers charts: per-worker context and pinned cost against the number of workers."""

from pinreport.base.labels import MiB, anchor, probe_label
from pinreport.pipeline.views import WorkersView
from pinreport.render.svg_charts import Chart, Series, line_chart


def workers_charts(views: tuple[WorkersView, ...]) -> list[Chart]:
    """Per-worker context cost and per-worker pinned cost against the number of workers (the
    per_process variant), per scenario and api: flat lines are linear scaling."""
    charts = []
    for view in views:
        series = [
            Series(f"{part.replace('_', ' ')} per worker · {probe_label(view.key)}", [(n, v / MiB) for n, v in pts])
            for part, pts in view.parts
        ]
        charts.append(
            line_chart(
                anchor("workers", view.scenario, view.api),
                f"workers: {view.scenario}: {view.api}",
                "worker processes (N)",
                "cost per worker (MiB)",
                series,
                x_format=lambda v: f"{v:g}",
                y_format=lambda v: f"{v:g}",
                note="Phase deltas / N: a flat line means the cost grows linearly with the workers.",
            )
        )
    return charts
