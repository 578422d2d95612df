"""Cost charts: held cost against pinned size (or buffer count) per scenario and api."""

from pinreport.base.labels import MiB, anchor, probe_label, size_label
from pinreport.pipeline.values import CONTROL_API
from pinreport.pipeline.views import CostView
from pinreport.render.svg_charts import Chart, Series, line_chart


def cost_charts(views: tuple[CostView, ...]) -> list[Chart]:
    """Held cost against pinned size (or buffer count) per scenario and api; one line per
    driver release and probe, so the chart shows which probe moves."""
    charts = []
    for view in views:
        series = [
            Series(f"{release} · {probe_label(key)}", [(x, y / MiB) for x, y in points])
            for release, key, points in view.curves
        ]
        if view.axis == "count":
            x_label, fmt = "buffers held at once (count)", (lambda v: f"{v:g}")
        else:
            x_label, fmt = "pinned size per buffer", size_label
        title = f"{view.scenario}: {view.api}" + (" (control: pageable)" if view.api == CONTROL_API else "")
        charts.append(
            line_chart(
                anchor("cost", view.scenario, view.api),
                title,
                x_label,
                "held cost (MiB)",
                series,
                x_log=True,
                x_format=fmt,
                y_format=lambda v: f"{v:g}",
            )
        )
    return charts
