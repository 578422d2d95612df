"""Workers charts: per-worker context and pinned cost against the number of workers."""

from collections import defaultdict

from pinreport.analysis import kind_results
from pinreport.base.labels import MiB, anchor, probe_label
from pinreport.readers.runs import Run
from pinreport.render.svg_charts import Chart, Series, line_chart


def workers_charts(runs: list[Run]) -> list[Chart]:
    """Per-worker context cost and per-worker pinned cost against the number of workers (the
    per_process variant), per scenario and api: flat lines are linear scaling."""
    groups: dict[tuple[str, str], list[Run]] = defaultdict(list)
    for run in runs:
        if run.status == "ok" and run.plan.params.get("variant", "per_process") == "per_process":
            groups[(run.plan.scenario, run.plan.api or "")].append(run)
    charts = []
    for (scenario, api), group in sorted(groups.items()):
        context, key = kind_results.worker_context_part(group)
        key = key or kind_results.dedicated_key(group, "workers.pinned_per_worker.")
        if key is None:
            continue
        series = []
        for part in (context, "pinned"):
            pts = []
            for run in group:
                value = kind_results.median_of(run, f"workers.{part}_per_worker.{key}")
                workers = run.plan.params.integer("workers")
                if value is not None and workers is not None:
                    pts.append((float(workers), value / MiB))
            if pts:
                series.append(Series(f"{part.replace('_', ' ')} per worker · {probe_label(key)}", pts))
        if series:
            charts.append(
                line_chart(
                    anchor("workers", scenario, api),
                    f"workers: {scenario}: {api}",
                    "worker processes (N)",
                    "cost per worker (MiB)",
                    series,
                    x_format=lambda v: f"{v:g}",
                    y_format=lambda v: f"{v:g}",
                    note="Phase deltas / N: a flat line means the cost grows linearly with the workers.",
                )
            )
    return charts
