"""Sweep charts: cost against pinned size (size_curve) or buffer count (count_curve)."""

from pinreport.analysis import kind_results
from pinreport.base.labels import MiB, anchor, probe_label, size_label
from pinreport.readers.runs import Run
from pinreport.render.svg_charts import Chart, Series, line_chart


def sweep_charts(runs: list[Run]) -> list[Chart]:
    """Cost against pinned size (size_curve) or buffer count (count_curve), per sweep run."""
    charts = []
    for run in runs:
        if run.status != "ok":
            continue
        points = kind_results.sweep_points(run)
        for axis in ("size", "count"):
            keys = {k for a, k in points if a == axis}
            head = kind_results.dedicated_headline(keys)
            shown = [k for k in (head, kind_results.SHARED_BESIDE if kind_results.SHARED_BESIDE in keys else None) if k]
            if not shown:
                continue
            series = [Series(probe_label(k), [(x, y / MiB) for x, y in points[(axis, k)]]) for k in shown]
            size_axis = axis == "size"
            charts.append(
                line_chart(
                    anchor("sweep", run.id, axis),
                    f"sweep: {run.id}",
                    "pinned size" if size_axis else "buffers held at once (count)",
                    "cost (MiB)",
                    series,
                    x_log=size_axis,
                    x_format=size_label if size_axis else (lambda v: f"{v:g}"),
                    y_format=lambda v: f"{v:g}",
                )
            )
    return charts
