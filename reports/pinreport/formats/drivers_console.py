"""`pinreport drivers` as text: per machine group, its releases newest first, each with its nights,
its verdict against the previous release, one line per API and its budget (drivers_cells.py)."""

from pinreport.base.text import terminal_lines
from pinreport.formats import drivers_cells as cells
from pinreport.pipeline.drivers import DriverTable, group_label


def format_drivers(table: DriverTable) -> str:
    releases = len(table.rows)
    replayed = sum(r.replayed for r in table.rows)
    shown = f", {replayed} replayed ({cells.REPLAYED}: never a baseline)" if table.replay_shown else ""
    lines = [
        f"pinreport drivers: {table.store}: {len(table.groups)} machine group(s), {releases} release(s){shown}",
        "Per release, its newest night as `pinreport summary` gives it; the verdict against the previous "
        "real release of the group.",
    ]
    for group in table.groups:
        lines.append("")
        lines.append(group_label(group))
        for r in table.rows_of(group):
            tag = f"{cells.REPLAYED} " if r.replayed else ""
            lines.append(f"  {cells.label(r)}: {cells.nights_text(r)}; {cells.verdict_text(r)}")
            lines.extend(f"    {tag}{cells.api_line(r.newest, row)}" for row in r.newest.rows)
            if not r.newest.rows:
                lines.append(f"    {tag}no cost fit in its newest night")
            lines.append(f"    {tag}budget: {cells.budget_text(r.budget)}")
            lines.append(f"    {tag}claims changed: {cells.claims_text(r)}")
    if not table.rows:
        lines.append("No stored night allows a row (the store holds no usable results file).")
    return terminal_lines(lines)
