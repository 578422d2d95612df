"""The driver table's cells in words (`pinreport drivers`): one wording, read by its text,
Markdown and HTML outputs (drivers_console.py, drivers_markdown.py, render/drivers_page.py),
which only lay them out. The numbers are those `pinreport summary` prints for the release's newest
night (format_bytes of the same CostRow), so a cell reads as the summary's line does."""

from pinreport.base.labels import GiB, probe_label, size_label
from pinreport.base.units import format_bytes
from pinreport.pipeline.answer import CostRow, Reserve
from pinreport.pipeline.drivers import BudgetCell, Night, ReleaseRow

REPLAYED = "[REPLAYED]"
TABLE_RESERVE_SIZE = 16 * GiB  # the reserve the table shows (the answer's largest size)


def cost_per_gib(row: CostRow) -> str:
    """ "2.06 MiB" as summary prints it, or "below resolution"."""
    return "below resolution" if row.fit.below_resolution else format_bytes(row.per_gib)


def slope_bound(night: Night, row: CostRow) -> str:
    """The 95% upper bound of the slope per pinned GiB; "" below resolution."""
    bound = night.bound_of(row)
    return "" if bound is None else format_bytes(bound * GiB)


def reserve_at(row: CostRow, size: int = TABLE_RESERVE_SIZE) -> Reserve | None:
    return next((r for r in row.reserves if r.size == size), None)


def reserve_text(row: CostRow, size: int = TABLE_RESERVE_SIZE) -> str:
    r = reserve_at(row, size)
    return "-" if r is None else format_bytes(r.per_gpu)


def rule_text(row: CostRow) -> str:
    return row.rule or "not judged"


def api_line(night: Night, row: CostRow) -> str:
    """One API of a release in one line."""
    bound = slope_bound(night, row)
    cost = cost_per_gib(row)
    cost = f"{cost} per pinned GiB (95% bound {bound})" if bound else cost
    return (
        f"{row.api}, {row.gpus} GPU(s): {cost} on {probe_label(row.family)}, rule {rule_text(row)}, "
        f"reserve at {size_label(TABLE_RESERVE_SIZE)} {reserve_text(row)}"
    )


def api_short(night: Night, row: CostRow) -> str:
    """One API in a table cell: "cudaMallocHost: 2.06 MiB (≤ 2.12 MiB), OVER-RESERVED, 16GiB 33.50 MiB"."""
    bound = slope_bound(night, row)
    cost = cost_per_gib(row) + (f" (≤ {bound})" if bound else "")
    gpus = "" if row.gpus == 1 else f" x{row.gpus} GPUs"
    return f"{row.api}{gpus}: {cost}, {rule_text(row)}, {size_label(TABLE_RESERVE_SIZE)} {reserve_text(row)}"


def budget_text(b: BudgetCell | None) -> str:
    if b is None:
        return "no budget stored"
    if b.safe_budget is None:
        return "no safe budget (no family answered)"
    size = format_bytes(b.safe_budget)
    budget = size if b.limit_found else f"at least {size}" + (f" ({b.words})" if b.words else "")
    if b.vram_disturbed:
        vram = "VRAM not measured: disturbed"
    elif b.vram_cost is not None:
        vram = f"VRAM it costs {format_bytes(b.vram_cost)}"
    else:
        vram = "VRAM not measured"
    return f"{b.family} {budget}, {vram}"


def nights_text(r: ReleaseRow) -> str:
    first, last = r.first[:10], r.last[:10]
    dates = first if first == last else f"{first} to {last}"
    return f"{r.nights} night{'s' if r.nights != 1 else ''}, {dates}"


def verdict_text(r: ReleaseRow) -> str:
    v = r.verdict
    if v.against is None:
        return f"{v.verdict} (no earlier real release of this group)"
    return v.describe()


def claims_text(r: ReleaseRow) -> str:
    return "; ".join(f"#{c.n} {c.old} -> {c.new}" for c in r.claims_changed) or "none"


def label(r: ReleaseRow) -> str:
    """The release as every output names it: REPLAYED on each replayed row."""
    return f"{REPLAYED} {r.key.release}" if r.replayed else r.key.release
