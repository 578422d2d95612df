"""History charts: the held cost of each run across nights, driver changes marked."""

import math
from collections import defaultdict

from pinreport.analysis.history import Night, rule_kind_groups
from pinreport.base.labels import MiB, anchor, headline_key, probe_label, size_label
from pinreport.render.svg_charts import Chart, Mark, Series, line_chart


def history_charts(all_nights: list[Night], max_ticks: int = 8) -> list[Chart]:
    """Per scenario and api, the held cost on the headline probe of each run across nights,
    with a marker wherever the driver release changes."""
    if len(all_nights) < 2:
        return []
    values: dict[tuple[str, str], dict[str, list[tuple[float, float]]]] = defaultdict(lambda: defaultdict(list))
    for i, n in enumerate(all_nights):
        for (scenario, api), runs in rule_kind_groups(n.runs).items():
            for run, costs in runs:
                head = headline_key(set(costs))
                if head is None:
                    continue
                plan = run.plan
                name = f"{size_label(plan.size or 0)} x{plan.count} · {probe_label(head)}"
                values[(scenario, api)][name].append((float(i), costs[head].median / MiB))
    marks = [
        Mark(float(i), f"driver {n.release_name}")
        for i, n in enumerate(all_nights)
        if i > 0 and n.release != all_nights[i - 1].release
    ]
    labels = [n.label + (" (replayed)" if n.replayed else "") for n in all_nights]
    stride = max(1, math.ceil(len(labels) / max_ticks))
    ticks = [float(i) for i in range(0, len(labels), stride)]

    def fmt(v: float) -> str:
        i = int(round(v))
        return labels[i] if 0 <= i < len(labels) else f"{v:g}"

    charts = []
    for (scenario, api), series in sorted(values.items()):
        charts.append(
            line_chart(
                anchor("history", scenario, api),
                f"history: {scenario}: {api}",
                "night (start date)",
                "held cost (MiB)",
                [Series(k, v) for k, v in sorted(series.items())],
                x_format=fmt,
                vmarks=marks,
                x_ticks=ticks,
            )
        )
    return charts
