"""Cost charts: held cost against pinned size (or buffer count) per scenario and api."""

from collections import defaultdict

from pinreport.analysis.history import Night, rule_kind_groups
from pinreport.analysis.rule import CONTROL_API, is_judged_key, is_shared_key
from pinreport.base.labels import MiB, anchor, probe_label, size_label
from pinreport.readers.runs import Run
from pinreport.render.svg_charts import Chart, Series, line_chart


def _x_axis(runs: list[Run]) -> str:
    """ "size" when the sizes vary (or nothing varies), "count" when only the count does."""
    sizes = {r.plan.size for r in runs}
    counts = {r.plan.count for r in runs}
    return "count" if len(sizes) == 1 and len(counts) > 1 else "size"


def cost_charts(per_release: list[Night]) -> list[Chart]:
    """Held cost against pinned size (or buffer count) per scenario and api; one line per
    driver release and probe, so the chart shows which probe moves."""
    groups = [rule_kind_groups(n.runs) for n in per_release]
    current_groups = groups[-1] if per_release else {}
    keys = sorted(set().union(*[set(g) for g in groups])) if per_release else []
    charts = []
    for scenario, api in keys:
        runs_cur = current_groups.get((scenario, api)) or next(
            g[(scenario, api)] for g in groups if (scenario, api) in g
        )
        axis = _x_axis([run for run, _ in runs_cur])
        series = []
        for n, g in zip(per_release, groups, strict=True):
            points: dict[str, list[tuple[float, float]]] = defaultdict(list)
            for run, costs in g.get((scenario, api), []):
                x = run.plan.count if axis == "count" else run.plan.size
                if x is None:
                    continue
                for key, cost in costs.items():
                    if is_judged_key(key) or is_shared_key(key):
                        points[key].append((float(x), cost.median / MiB))
            for key in sorted(points):
                series.append(Series(f"{n.release_name} · {probe_label(key)}", points[key]))
        if axis == "count":
            x_label, fmt, log = "buffers held at once (count)", (lambda v: f"{v:g}"), True
        else:
            x_label, fmt, log = "pinned size per buffer", size_label, True
        title = f"{scenario}: {api}" + (" (control: pageable)" if api == CONTROL_API else "")
        charts.append(
            line_chart(
                anchor("cost", scenario, api),
                title,
                x_label,
                "held cost (MiB)",
                series,
                x_log=log,
                x_format=fmt,
                y_format=lambda v: f"{v:g}",
            )
        )
    return charts
