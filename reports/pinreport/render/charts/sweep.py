"""Sweep charts: cost against pinned size (size_curve) or buffer count (count_curve)."""

from pinreport.base.labels import MiB, anchor, probe_label, size_label
from pinreport.pipeline.views import SweepCurve
from pinreport.render.svg_charts import Chart, Series, line_chart


def sweep_charts(views: tuple[SweepCurve, ...]) -> list[Chart]:
    """Cost against pinned size (size_curve) or buffer count (count_curve), per sweep run."""
    charts = []
    for view in views:
        size_axis = view.axis == "size"
        charts.append(
            line_chart(
                anchor("sweep", view.run_id, view.axis),
                f"sweep: {view.run_id}",
                "pinned size" if size_axis else "buffers held at once (count)",
                "cost (MiB)",
                [Series(probe_label(k), [(x, y / MiB) for x, y in points]) for k, points in view.curves],
                x_log=size_axis,
                x_format=size_label if size_axis else (lambda v: f"{v:g}"),
                y_format=lambda v: f"{v:g}",
            )
        )
    return charts
