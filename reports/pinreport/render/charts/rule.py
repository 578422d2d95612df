"""Reservation-rule charts: measured ratio against pinned bytes, the band, the fit and its
prediction bound, per scenario."""

import math
from collections import defaultdict

from pinreport.analysis.fit import CostFit, FitKey, probe_family
from pinreport.analysis.rule import Band, RuleResult, RuleVerdict
from pinreport.base.labels import anchor, headline_key, probe_label, size_label
from pinreport.render.svg_charts import Band as ChartBand
from pinreport.render.svg_charts import Chart, Mark, Series, line_chart


def _log_grid(lo: float, hi: float, n: int = 12) -> list[float]:
    if lo <= 0 or hi <= lo:
        return [x for x in (lo, hi) if x > 0]
    a, b = math.log2(lo), math.log2(hi)
    return [2 ** (a + (b - a) * i / (n - 1)) for i in range(n)]


def rule_charts(rule: list[RuleResult], band: Band, fits: dict[FitKey, CostFit]) -> list[Chart]:
    """Per scenario: measured ratio against pinned bytes on the headline probe per api, the
    band, the fit and its prediction bound (the api asking for the most)."""
    charts = []
    by_scenario: dict[str, list[RuleResult]] = defaultdict(list)
    for r in rule:
        by_scenario[r.scenario].append(r)
    for scenario, results in sorted(by_scenario.items()):
        keys = {r.key for r in results if r.verdict != RuleVerdict.NOT_JUDGED}
        head = headline_key(keys)
        if head is None:
            continue
        series: dict[str, list[tuple[float, float]]] = defaultdict(list)
        for r in results:
            if r.key == head and r.verdict != RuleVerdict.NOT_JUDGED:
                series[r.api].append((float(r.pinned), r.ratio))
        lines = [Series(f"{api} · {probe_label(head)}", pts) for api, pts in sorted(series.items())]
        xs = sorted({x for pts in series.values() for x, _ in pts})
        hlines = []
        scenario_recs = [
            (fk, f)
            for fk, f in fits.items()
            if fk.family == probe_family(head) and fk.api in series and f.usable and not f.below_resolution
        ]
        if scenario_recs and xs:
            fk, f = max(scenario_recs, key=lambda kv: kv[1].upper_bound(xs[-1]))
            grid = _log_grid(xs[0], xs[-1])
            lines.append(Series(f"fit ({fk.api})", [(x, f.predict(x) / x) for x in grid], dashed=True))
            lines.append(
                Series(
                    f"{f.confidence:.0%} prediction bound ({fk.api})", [(x, f.upper_bound(x) / x) for x in grid], True
                )
            )
            hlines.append(Mark(f.upper_bound(xs[-1]) / xs[-1], f"recommended reserve at {size_label(xs[-1])}"))
        charts.append(
            line_chart(
                anchor("rule", scenario),
                f"reservation rule: {scenario}",
                "total pinned bytes",
                "held cost / pinned bytes",
                lines,
                x_log=True,
                x_format=size_label,
                y_format=lambda v: f"{v:.3g}",
                band=ChartBand(float(band.lower), float(band.upper), f"rule band {band}"),
                hlines=hlines,
            )
        )
    return charts
