"""`pinreport drivers --markdown`: the driver table as Markdown (the nightly's job summary), one
table per machine group, its releases newest first, one column per API (drivers_cells.py)."""

from pinreport.base.atomic_write import write_text
from pinreport.formats import drivers_cells as cells
from pinreport.pipeline.drivers import DriverTable, ReleaseRow, group_label


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _api_cell(r: ReleaseRow, api: str, gpus: int) -> str:
    row = next((x for x in r.newest.rows if x.api == api and x.gpus == gpus), None)
    if row is None:
        return "-"
    bound = cells.slope_bound(r.newest, row)
    cost = cells.cost_per_gib(row) + (f" (≤ {bound})" if bound else "")
    return f"{cost}; {cells.rule_text(row)}; {cells.reserve_text(row)}"


def format_drivers_markdown(table: DriverTable, max_releases: int | None = None) -> str:
    out = ["## pinbench driver table", ""]
    out.append(
        "Per release, its newest night as `pinreport summary` gives it: cost per pinned GiB (≤ its 95% bound); "
        "the rule's verdict; the reserve per GPU at 16 GiB. The verdict is against the previous real release "
        "of the group."
    )
    if table.replay_shown:
        out += ["", f"> Rows marked **{cells.REPLAYED}** are replayed data: never a measurement, never a baseline."]
    for group in table.groups:
        rows = table.rows_of(group)
        shown = rows[:max_releases] if max_releases else rows
        apis = list(dict.fromkeys((x.api, x.gpus) for r in shown for x in r.newest.rows))
        out += ["", f"### {_cell(group_label(group))}", ""]
        head = ["release", "nights", "verdict vs previous", "safe budget", "claims changed"]
        head += [f"{api} ({gpus} GPU)" for api, gpus in apis]
        out.append("| " + " | ".join(_cell(h) for h in head) + " |")
        out.append("|" + " --- |" * len(head))
        for r in shown:
            cols = [cells.label(r), cells.nights_text(r), cells.verdict_text(r), cells.budget_text(r.budget)]
            cols += [cells.claims_text(r)] + [_api_cell(r, api, gpus) for api, gpus in apis]
            out.append("| " + " | ".join(_cell(c) for c in cols) + " |")
        if len(shown) < len(rows):
            out += ["", f"({len(rows) - len(shown)} older release(s) not shown here; the full table: drivers.html)"]
    if not table.rows:
        out += ["", "No stored night allows a row."]
    return "\n".join(out) + "\n"


def write_drivers_markdown(table: DriverTable, path: str, max_releases: int | None = None) -> None:
    write_text(path, format_drivers_markdown(table, max_releases))
