"""The Advice as terminal text: `pinreport advise`, and the section `pinreport trace` prints.
Reads the Advice value only (build.py); every line goes through text.terminal_lines."""

from pinreport.advice.build import Advice, ScopeAdvice
from pinreport.advice.options import Option
from pinreport.base.text import terminal_lines
from pinreport.base.units import format_bytes


def _vram(v: float | None) -> str:
    return "unknown" if v is None else format_bytes(round(v))


def cost_line(s: ScopeAdvice, gpus: int) -> str:
    c = s.cost
    parts = [f"holds {format_bytes(c.held)} pinned at the peak"]
    if c.blocks:
        parts.append("as " + ", ".join(f"{n} x {format_bytes(b)}" for b, n in list(c.blocks.items())[:3]))
    if c.predicted is not None:
        parts.append(
            f"VRAM {_vram(c.predicted)} predicted, at most {_vram(c.bound)} (the fit's bound"
            + (f", x {gpus} GPUs)" if gpus > 1 else ")")
        )
    if c.observed is not None:
        parts.append(f"observed {_vram(c.observed.bytes)}" if c.observed.bytes is not None else "observed: not used")
    if c.budget_share is not None:
        parts.append(f"{c.budget_share:.1%} of the safe pin budget")
    return "; ".join(parts)


def option_lines(o: Option) -> list[str]:
    if not o.applies:
        return [f"    {o.name}: does not apply: {'; '.join(o.notes)}"]
    head = f"    {o.name}: {o.change}"
    lines = [head]
    nums = []
    if o.bytes_saved is not None:
        nums.append(f"pinned {format_bytes(o.bytes_saved)} less")
    if o.vram_saved is not None:
        nums.append(f"VRAM {_vram(o.vram_saved)} saved ({o.vram_basis})")
    if o.speed is not None:
        nums.append(f"copy speed {o.speed:.0%} of pinned now ({o.speed_detail})")
    if nums:
        lines.append("      " + "; ".join(nums))
    for src in o.evidence:
        lines.append(f"      rests on: {src.words()}")
    for m in o.missing:
        lines.append(f"      {m.words()}")
    for n in o.notes:
        lines.append(f"      note: {n}")
    return lines


def scope_lines(s: ScopeAdvice, gpus: int, title: str) -> list[str]:
    lines = [f"{title}: {cost_line(s, gpus)}"]
    for n in s.cost.notes:
        lines.append(f"  note: {n}")
    lines.append(f"  verdict: {s.verdict.words}")
    if s.verdict.best is None and s.verdict.ranked:
        o = s.verdict.ranked[0]
        lines.append(
            f"  best trade, if changed anyway: {o.name}: {format_bytes(round(o.vram_saved or 0))} of VRAM for"
            f" {o.speed_lost_pct or 0:.0f}% of copy speed"
        )
    lines.append(f"  threshold: {s.verdict.threshold}")
    if len(s.verdict.ranked) > 1:
        lines.append(f"  ranked ({s.verdict.ranked_by}): " + ", ".join(o.name for o in s.verdict.ranked))
    lines.append("  options:")
    for o in s.options:
        lines.extend(option_lines(o))
    return lines


def advice_lines(a: Advice) -> list[str]:
    tag = "[REPLAYED] " if a.replayed else ""
    lines = [
        f"{tag}advice for {a.trace_path} ({a.machine.words()}, {a.gpus} GPU(s)"
        + (f" of {format_bytes(a.gpu_memory)}" if a.gpu_memory else "")
        + ")",
    ]
    for n in a.notes:
        lines.append(f"  note: {n}")
    for m in a.missing:
        lines.append(f"  {m.words()}")
    if a.budget is not None:
        lines.append(f"  pin budget: {a.budget.words()}")
    lines.extend(scope_lines(a.program, a.gpus, "the program"))
    if len(a.sites) > 1:
        for s in a.sites:
            lines.extend(scope_lines(s, a.gpus, f"call site {s.cost.scope}"))
    elif a.sites:
        lines.append(f"one call site: {a.sites[0].cost.scope} (the program's figures)")
    return lines


def format_advice(a: Advice) -> str:
    return terminal_lines(advice_lines(a))
