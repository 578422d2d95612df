"""The max-pinnable chart: max pinnable against free VRAM (pinnable_fit.py), with the fit and y = x."""

from pinreport.base.labels import GiB
from pinreport.pipeline.views import PinnableView
from pinreport.render.svg_charts import Chart, Series, line_chart


def _gib(v: float) -> str:
    return f"{v:.3g}"


def pinnable_charts(view: PinnableView | None) -> list[Chart]:
    """Max pinnable against free VRAM before the search, over the sweep kind's max_pinnable runs
    with free_target: one series per api, its capped (or timed-out) points, lower bounds, as a
    second series drawn as upward triangles in the api's colour, the least-squares fit over the
    uncapped points, and the line y = x."""
    if view is None:
        return []
    series: list[Series] = []
    for a in view.apis:
        if a.free:
            series.append(Series(a.api, [(x / GiB, y / GiB) for x, y in a.free]))
        if a.bounded:
            bounded = [(x / GiB, y / GiB) for x, y in a.bounded]
            series.append(Series(f"{a.api} · capped or timed out", bounded, lower_bound_of=a.api))
        if a.fit is not None:
            slope, intercept, lo, hi = a.fit
            line = [(x, (intercept + slope * x * GiB) / GiB) for x in (lo / GiB, hi / GiB)]
            series.append(Series(f"fit ({a.api}): slope {slope:.3g}", line, dashed=True))
    top = view.top / GiB
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
