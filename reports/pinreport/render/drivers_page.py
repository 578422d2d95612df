"""`pinreport drivers --html`: the driver table as one self-contained page (docs/drivers.md). Per
machine group, a chart of each API's VRAM cost per pinned GiB across its releases and one of its
safe pin budget (svg_charts.line_chart), each point linked to its night's report; the groups of one
GPU under different driver models side by side; then the table. templates/drivers.html.j2
displays what this module prepares, and computes nothing."""

from typing import Any

import jinja2

from pinreport.base.atomic_write import write_text
from pinreport.base.labels import GiB, MiB, anchor
from pinreport.formats import drivers_cells as cells
from pinreport.pipeline.drivers import DriverTable, Night, ReleaseRow, group_label, groups_by_gpu
from pinreport.render.svg_charts import Series, line_chart

# Placeholders a --report-url template may use (docs/drivers.md).
URL_FIELDS = ("platform", "driver_model", "gpu", "gpu_count", "release", "time", "measurement_id")


def night_link(template: str | None, night: Night, row_id: str) -> str:
    """Where a point of a night links: the template with its fields filled, or the row of the
    table that holds the night (no template)."""
    if not template:
        return f"#{row_id}"
    k = night.key
    time = night.started_at.replace("-", "").replace(":", "")
    values = dict(
        platform=k.platform,
        driver_model=k.driver_model,
        gpu=k.gpu,
        gpu_count=k.gpu_count,
        release=k.release,
        time=time,
        measurement_id=night.measurement_id,
    )
    return template.format(**values)


def _row_id(r: ReleaseRow) -> str:
    return anchor("r", *r.key.group, r.key.release, "replayed" if r.replayed else "real")


def _x_label(r: ReleaseRow) -> str:
    return f"{r.key.release} {cells.REPLAYED}" if r.replayed else r.key.release


def _charts(table: DriverTable, group: tuple[str, str, str, str], report_url: str | None) -> list:
    """The group's two charts: one line per API through every release (oldest left), the budget
    below it. A replayed release has its own place on the x axis, labelled [REPLAYED] there and in
    each of its points' titles."""
    rows = list(reversed(table.rows_of(group)))  # oldest first
    labels = [_x_label(r) for r in rows]

    def x_format(v: float) -> str:
        i = round(v)
        return labels[i] if 0 <= i < len(labels) and abs(v - i) < 1e-9 else ""

    ticks = [float(i) for i in range(len(rows))]
    series: dict[str, tuple[list, list]] = {}
    budgets: dict[str, tuple[list, list]] = {}
    for i, r in enumerate(rows):
        link = night_link(report_url, r.newest, _row_id(r))
        for x in r.newest.rows:
            pts, links = series.setdefault(f"{x.api} ({x.gpus} GPU)", ([], []))
            pts.append((float(i), x.per_gib / MiB))
            links.append(link)
        b = r.budget
        if b is not None and b.safe_budget is not None:
            pts, links = budgets.setdefault("safe budget" if b.limit_found else "safe budget (capped)", ([], []))
            pts.append((float(i), b.safe_budget / GiB))
            links.append(link)
    gid = anchor("g", *group)
    replayed = (
        " Releases marked [REPLAYED] are replayed data, never a baseline." if any(r.replayed for r in rows) else ""
    )
    cost = line_chart(
        f"{gid}-cost",
        f"VRAM per pinned GiB, {group_label(group)}",
        "driver release (the newest night of each)",
        "MiB of VRAM per pinned GiB",
        [Series(name, pts, links=links) for name, (pts, links) in sorted(series.items())],
        x_format=x_format,
        y_format=lambda v: f"{v:g}",
        x_ticks=ticks,
        note="The least-squares slope of each API's held cost, as pinreport summary gives it; each point links "
        "to its night." + replayed,
    )
    charts = [cost]
    if budgets:
        charts.append(
            line_chart(
                f"{gid}-budget",
                f"Safe pin budget, {group_label(group)}",
                "driver release (its budget)",
                "GiB one process may pin",
                [
                    Series(n, pts, links=links, lower_bound_of="safe budget" if n.endswith("(capped)") else None)
                    for n, (pts, links) in sorted(budgets.items())
                ],
                x_format=x_format,
                y_format=lambda v: f"{v:g}",
                x_ticks=ticks,
                note="80% of what one process held at once (docs/budget.md); a triangle: the search was capped, "
                "the budget is at least that." + replayed,
            )
        )
    return charts


def _row(r: ReleaseRow, report_url: str | None) -> dict[str, Any]:
    return {
        "id": _row_id(r),
        "release": cells.label(r),
        "replayed": r.replayed,
        "nights": cells.nights_text(r),
        "verdict": r.verdict.verdict,
        "verdict_text": cells.verdict_text(r),
        "budget": cells.budget_text(r.budget),
        "claims": cells.claims_text(r),
        "apis": [cells.api_short(r.newest, x) for x in r.newest.rows] or ["no cost fit in its newest night"],
        "link": night_link(report_url, r.newest, _row_id(r)),
    }


def drivers_context(table: DriverTable, report_url: str | None = None) -> dict[str, Any]:
    side_by_side = []
    for (gpu, count), groups in groups_by_gpu(table).items():
        side_by_side.append(
            {
                "title": f"{gpu}, {count}",
                "groups": [
                    {
                        "id": anchor("g", *g),
                        "label": group_label(g),
                        "charts": _charts(table, g, report_url),
                        "rows": [_row(r, report_url) for r in table.rows_of(g)],
                    }
                    for g in groups
                ],
            }
        )
    return {
        "title": "pinbench driver table",
        "store": table.store,
        "replay_shown": table.replay_shown,
        "gpus": side_by_side,
        "problems": [str(p) for p in table.problems],
        "band": str(table.options.band),
    }


def render_drivers_html(table: DriverTable, report_url: str | None = None) -> str:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("pinreport", "templates"),
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
        undefined=jinja2.StrictUndefined,
    )
    return env.get_template("drivers.html.j2").render(**drivers_context(table, report_url))


def write_drivers_html(table: DriverTable, path: str, report_url: str | None = None) -> None:
    write_text(path, render_drivers_html(table, report_url))
