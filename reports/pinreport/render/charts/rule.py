"""Reservation-rule charts: measured ratio against pinned bytes, the band, the fit and its
prediction bound, per scenario."""

from pinreport.base.labels import anchor, probe_label, size_label
from pinreport.pipeline.values import Band
from pinreport.pipeline.views import RuleView
from pinreport.render.svg_charts import Band as ChartBand
from pinreport.render.svg_charts import Chart, Mark, Series, line_chart


def rule_charts(views: tuple[RuleView, ...], band: Band) -> list[Chart]:
    """Per scenario: measured ratio against pinned bytes on the headline probe per api, the
    band, the fit and its prediction bound (the api asking for the most)."""
    charts = []
    for view in views:
        lines = [Series(f"{api} · {probe_label(view.key)}", pts) for api, pts in view.ratios]
        hlines = []
        f = view.fit
        if f is not None:
            lines.append(Series(f"fit ({f.api})", f.predicted, dashed=True))
            lines.append(Series(f"{f.confidence:.0%} prediction bound ({f.api})", f.bound, True))
            hlines.append(Mark(f.reserve[1], f"recommended reserve at {size_label(f.reserve[0])}"))
        charts.append(
            line_chart(
                anchor("rule", view.scenario),
                f"reservation rule: {view.scenario}",
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
