"""The max-pinnable chart: max pinnable against free VRAM (pinnable_fit.py), with the fit and y = x."""

from pinreport.analysis import pinnable_fit
from pinreport.base.labels import GiB
from pinreport.readers.runs import Run
from pinreport.render.svg_charts import Chart, Series, line_chart


def _gib(v: float) -> str:
    return f"{v:.3g}"


def pinnable_charts(runs: list[Run]) -> list[Chart]:
    """Max pinnable against free VRAM before the search (pinnable_fit.py), over the sweep kind's
    max_pinnable runs with free_target: one series per api, its capped (or timed-out) points,
    lower bounds, as a second series drawn as upward triangles in the api's colour, the
    least-squares fit over the uncapped points, and the line y = x."""
    by_api = pinnable_fit.collect_runs(runs)
    if not by_api:
        return []
    series: list[Series] = []
    for api, points in by_api.items():
        free = [(p.free_before / GiB, p.max_pinnable / GiB) for p in points if not p.lower_bound]
        bounded = [(p.free_before / GiB, p.max_pinnable / GiB) for p in points if p.lower_bound]
        if free:
            series.append(Series(api, free))
        if bounded:
            series.append(Series(f"{api} · capped or timed out", bounded, lower_bound_of=api))
        fit = pinnable_fit.fit_slope(points)
        if fit.slope is not None and fit.intercept is not None:
            xs = [x for x, _ in free]
            line = [(x, (fit.intercept + fit.slope * x * GiB) / GiB) for x in (min(xs), max(xs))]
            series.append(Series(f"fit ({api}): slope {fit.slope:.3g}", line, dashed=True))
    top = max(p.free_before for points in by_api.values() for p in points) / GiB
    series.append(Series("y = x", [(0.0, 0.0), (top, top)], dashed=True))
    return [
        line_chart(
            "sweep-max-pinnable-free-vram",
            "max pinnable against free VRAM",
            "free VRAM before the search (GiB)",
            "max pinnable (GiB)",
            series,
            x_format=_gib,
            y_format=_gib,
            note="Median over the ok repeats of each run. A triangle is a capped search (the cap pinned at "
            "once) or one that timed out: a lower bound, the real largest size may be higher; such points "
            "are left out of the fit.",
        )
    ]
