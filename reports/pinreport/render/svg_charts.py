"""Chart geometry for the HTML report: data in, pixel coordinates and tick labels out.

Pure functions, no drawing: the template (templates/report.html.j2) turns what line_chart()
returns into inline SVG, so the geometry is unit-tested here and the template only displays.
Every chart also carries its data as rows for a table fallback (screen readers, copy-paste).
Cost is linear in the number of points, so a 100-night history stays cheap to render.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

WIDTH, HEIGHT = 760, 300
LEFT, RIGHT, TOP, BOTTOM = 84, 60, 14, 46

# Okabe-Ito (colour-blind safe), then dashes tell series apart once the colours repeat.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#000000", "#F0E442")
DASHES = ("", "6 3", "2 3", "8 3 2 3")


@dataclass(frozen=True)
class Series:
    name: str
    points: Sequence[tuple[float, float]]  # (x, y) in data units, any order
    dashed: bool = False  # a reference (a fit, a bound), not a measurement
    # Lower bounds of the series of this name (a capped search): markers only, no line, in that
    # series' colour when it is drawn before them.
    lower_bound_of: str | None = None
    # A link per point, in the order of `points` ("" for none): each marker links to it (the
    # driver table's points to their night's report).
    links: Sequence[str] = ()


@dataclass(frozen=True)
class Mark:
    """A vertical marker at data x (a driver change) or a horizontal line at data y."""

    at: float
    label: str


@dataclass(frozen=True)
class Band:
    low: float
    high: float
    label: str


@dataclass
class Chart:
    id: str
    title: str
    x_label: str
    y_label: str
    width: int = WIDTH
    height: int = HEIGHT
    plot: tuple[int, int, int, int] = (LEFT, TOP, WIDTH - RIGHT, HEIGHT - BOTTOM)  # x0, y0, x1, y1
    x_ticks: list[tuple[float, str]] = field(default_factory=list)  # (pixel x, label)
    y_ticks: list[tuple[float, str]] = field(default_factory=list)
    series: list[dict] = field(default_factory=list)  # name, color, dash, path, points
    band: dict | None = None  # y_top, y_bottom, label
    hlines: list[dict] = field(default_factory=list)  # y, label
    vmarks: list[dict] = field(default_factory=list)  # x, label
    table_head: tuple[str, str, str] = ("series", "x", "y")
    table: list[tuple[str, str, str]] = field(default_factory=list)
    note: str = ""


def nice_step(span: float, target: int = 5) -> float:
    """A 1, 2 or 5 x 10^k step giving about `target` intervals over `span` (> 0)."""
    raw = span / max(target, 1)
    mag = 10 ** math.floor(math.log10(raw))
    for m in (1, 2, 5, 10):
        if m * mag >= raw:
            return m * mag
    return 10 * mag


def linear_ticks(lo: float, hi: float, target: int = 5) -> list[float]:
    """Tick values on nice steps covering [lo, hi] (hi > lo)."""
    step = nice_step(hi - lo, target)
    first = math.floor(lo / step + 1e-9) * step
    out, v = [], first
    while v <= hi + step * 1e-9:
        out.append(round(v, 12))
        v += step
    return out


def log2_ticks(lo: float, hi: float, max_ticks: int = 9) -> list[float]:
    """Powers of two from lo to hi (both > 0), thinned to at most max_ticks."""
    a, b = math.floor(math.log2(lo)), math.ceil(math.log2(hi))
    exps = list(range(a, b + 1))
    stride = max(1, math.ceil(len(exps) / max_ticks))
    return [2.0**e for e in exps[::stride]]


def _scale(lo: float, hi: float, p0: float, p1: float, log: bool) -> Callable[[float], float]:
    if log:
        lo, hi = math.log2(lo), math.log2(hi)
    span = (hi - lo) or 1.0

    def f(v: float) -> float:
        t = math.log2(v) if log else v
        return round(p0 + (t - lo) / span * (p1 - p0), 2)

    return f


def line_chart(
    chart_id: str,
    title: str,
    x_label: str,
    y_label: str,
    series: Sequence[Series],
    *,
    x_log: bool = False,
    x_format: Callable[[float], str] = lambda v: f"{v:g}",
    y_format: Callable[[float], str] = lambda v: f"{v:g}",
    y_range: tuple[float | None, float | None] = (None, None),
    band: Band | None = None,
    hlines: Sequence[Mark] = (),
    vmarks: Sequence[Mark] = (),
    x_ticks: Sequence[float] | None = None,
    note: str = "",
) -> Chart:
    """The geometry of one line chart (points joined in x order, each with a marker).

    The y axis always includes 0 (a cost axis that hides zero misleads), the band and the
    horizontal lines; a log x axis (sizes) drops points with x <= 0, which the note names."""
    chart = Chart(chart_id, title, x_label, y_label, note=note)
    x0, y0, x1, y1 = chart.plot
    kept: list[Series] = []
    dropped = 0
    for s in series:
        links = list(s.links) + [""] * (len(s.points) - len(s.links))
        linked = sorted(
            (float(x), float(y), link)
            for (x, y), link in zip(s.points, links, strict=True)
            if math.isfinite(x) and math.isfinite(y)
        )
        if x_log:
            dropped += sum(1 for x, _, _ in linked if x <= 0)
            linked = [p for p in linked if p[0] > 0]
        kept.append(replace(s, points=[(x, y) for x, y, _ in linked], links=[link for _, _, link in linked]))
    if dropped:
        chart.note = (
            chart.note + " " if chart.note else ""
        ) + f"{dropped} point(s) at x <= 0 not drawn on the log axis."
    xs = [x for s in kept for x, _ in s.points] + [m.at for m in vmarks]
    ys = [y for s in kept for _, y in s.points] + [m.at for m in hlines] + [0.0]
    if band:
        ys += [band.low, band.high]
    if y_range[0] is not None:
        ys.append(y_range[0])
    if y_range[1] is not None:
        ys.append(y_range[1])
    if not xs:
        xs = [1.0, 2.0] if x_log else [0.0, 1.0]
    xlo, xhi = min(xs), max(xs)
    if xlo == xhi:
        xlo, xhi = (xlo / 2, xhi * 2) if x_log else (xlo - 1, xhi + 1)
    ylo, yhi = min(ys), max(ys)
    if ylo == yhi:
        yhi = ylo + 1
    yt = linear_ticks(ylo, yhi)
    ylo, yhi = min(ylo, yt[0]), max(yhi, yt[-1])
    sx = _scale(xlo, xhi, x0, x1, x_log)
    sy = _scale(ylo, yhi, y1, y0, False)
    chart.y_ticks = [(sy(v), y_format(v)) for v in yt if ylo <= v <= yhi]
    xt = list(x_ticks) if x_ticks is not None else (log2_ticks(xlo, xhi) if x_log else linear_ticks(xlo, xhi))
    chart.x_ticks = [(sx(v), x_format(v)) for v in xt if xlo <= v <= xhi]
    colors: dict[str, str] = {}
    for i, s in enumerate(kept):
        pix = [(sx(x), sy(y)) for x, y in s.points]
        bounds = s.lower_bound_of is not None
        path = "" if bounds else " ".join(f"{'M' if j == 0 else 'L'}{px:g} {py:g}" for j, (px, py) in enumerate(pix))
        color = colors.get(s.lower_bound_of or "", PALETTE[i % len(PALETTE)])
        colors.setdefault(s.name, color)
        chart.series.append(
            {
                "name": s.name,
                "color": color,
                "dash": "4 3" if s.dashed else DASHES[(i // len(PALETTE)) % len(DASHES)],
                "path": path,
                "lower_bound": bounds,
                "points": [
                    (px, py, f"{s.name}: {x_format(x)}, {y_format(y)}", link)
                    for (px, py), (x, y), link in zip(pix, s.points, s.links, strict=True)
                ],
                "reference": s.dashed,
            }
        )
        if not s.dashed:  # the table holds the data; a reference line (fit, y = x) is drawn only
            chart.table.extend((s.name, x_format(x), y_format(y)) for x, y in s.points)
    if band:
        chart.band = {"y_top": sy(band.high), "y_bottom": sy(band.low), "label": band.label}
    chart.hlines = [{"y": sy(m.at), "label": m.label} for m in hlines]
    # A marker's label goes on the side with room: right of the line in the left half, else left.
    chart.vmarks = [
        {"x": sx(m.at), "label": m.label, "anchor": "start" if sx(m.at) < (x0 + x1) / 2 else "end"} for m in vmarks
    ]
    return chart
