"""History charts: the held cost of each run across nights, driver changes marked."""

import math

from pinreport.base.labels import MiB, anchor, probe_label, size_label
from pinreport.pipeline.views import NightsView
from pinreport.render.svg_charts import Chart, Mark, Series, line_chart


def history_charts(view: NightsView, max_ticks: int = 8) -> list[Chart]:
    """Per scenario and api, the held cost on the headline probe of each run across nights,
    with a marker wherever the driver release changes."""
    if len(view.labels) < 2:
        return []
    marks = [Mark(float(i), f"driver {release}") for i, release in view.changes]
    labels = view.labels
    stride = max(1, math.ceil(len(labels) / max_ticks))
    ticks = [float(i) for i in range(0, len(labels), stride)]

    def fmt(v: float) -> str:
        i = int(round(v))
        return labels[i] if 0 <= i < len(labels) else f"{v:g}"

    charts = []
    for h in view.histories:
        series: dict[str, list[tuple[float, float]]] = {}
        for c in h.curves:
            name = f"{size_label(c.size)} x{c.count} · {probe_label(c.key)}"
            series.setdefault(name, []).extend((i, y / MiB) for i, y in c.points)
        charts.append(
            line_chart(
                anchor("history", h.scenario, h.api),
                f"history: {h.scenario}: {h.api}",
                "night (start date)",
                "held cost (MiB)",
                [Series(k, v) for k, v in sorted(series.items())],
                x_format=fmt,
                vmarks=marks,
                x_ticks=ticks,
            )
        )
    return charts
