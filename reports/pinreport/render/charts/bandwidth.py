"""Bandwidth charts from the Google Benchmark files: the fraction of the link per transfer
size, and the staging ring's curve against its pinned bytes per operation and size."""

from collections import defaultdict

from pinreport.base.labels import anchor, size_label
from pinreport.pipeline.values import BenchRows
from pinreport.render.svg_charts import Chart, Mark, Series, line_chart


def bandwidth_charts(bench: BenchRows) -> list[Chart]:
    charts = []
    if bench.transfer or bench.staging:
        series: dict[str, list[tuple[float, float]]] = defaultdict(list)
        seen: dict[tuple[str, str, float], str] = {}
        for r in bench.transfer:
            k = (r.kind, r.op, r.bytes)
            if k in seen:  # the same row in a second file: keep the first, the table has both
                continue
            seen[k] = r.file
            series[f"{r.kind} {r.op}"].append((r.bytes, r.fraction))
        best: dict[tuple[str, str, int], float] = {}
        for r in bench.staging:
            k = (r.op, r.size, r.size_bytes)
            best[k] = max(best.get(k, 0.0), r.fraction)
        for (op, _, size), f in sorted(best.items()):
            series[f"staging ring {op} (best K, C, T)"].append((float(size), f))
        charts.append(
            line_chart(
                "bandwidth-link",
                "bandwidth as a fraction of the link rate",
                "transfer size",
                "fraction of link",
                [Series(k, v) for k, v in sorted(series.items())],
                x_log=True,
                x_format=size_label,
                y_format=lambda v: f"{v:.2g}",
                y_range=(0.0, 1.0),
            )
        )
    groups: dict[tuple[str, str], dict[int, dict[float, float]]] = defaultdict(lambda: defaultdict(dict))
    for r in bench.staging:
        pts = groups[(r.op, r.size)][r.threads]
        pts[r.pinned] = max(pts.get(r.pinned, 0.0), r.fraction)
    for (op, size), by_threads in sorted(groups.items()):
        hl = [Mark(b.fraction, f"{b.kind} direct copy") for b in bench.baselines if b.op == op and b.size == size]
        charts.append(
            line_chart(
                anchor("staging", op, size),
                f"staging ring: {op} of {size}",
                "pinned bytes of the ring (K x C)",
                "fraction of link",
                [Series(f"T = {t} threads", sorted(v.items())) for t, v in sorted(by_threads.items())],
                x_log=True,
                x_format=size_label,
                y_format=lambda v: f"{v:.2g}",
                y_range=(0.0, 1.0),
                hlines=hl,
                note="Best over the K x C pairs with equal pinned bytes.",
            )
        )
    return charts
