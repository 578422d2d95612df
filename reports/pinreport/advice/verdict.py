"""The verdict in plain words, with its threshold.

Holding more than the safe pin budget of this machine (`--budget`, docs/budget.md) is a reason to
change by itself, whatever the VRAM: above it pins fail, or on Windows poison the process. The
verdict is then "change", names the budget, and ranks the options that bring the scope under it
(least copy speed lost first; an option whose speed is not measured after those, named with
what to run).

Otherwise nothing is worth changing when the cost is within noise (the fit's bound per GPU under two cost
steps: readings cannot tell it from zero) or small against the GPU's memory (under SMALL_SHARE of
the smallest used GPU's total per GPU, `--small`). Otherwise the options whose every number is
measured for this machine are ranked by VRAM saved per percent of copy speed lost (an option that
loses no speed ranks first, the larger saving first among those); an option without its evidence
is named with what to run, never ranked on a guess."""

import math
from dataclasses import dataclass

from pinreport.advice.cost import Cost
from pinreport.advice.evidence import RUN_STORE
from pinreport.advice.options import Option
from pinreport.base.units import format_bytes

SMALL_SHARE = 0.01  # of one GPU's memory, per GPU
NOISE_STEPS = 2  # a cost under two reading steps is within noise (as `pinreport trace`)
NOTHING = "nothing worth changing"
CHANGE = "change"
UNKNOWN = "no cost figure"


BY_TRADE = "VRAM saved per percent of copy speed lost"
BY_BUDGET = "bringing it under the safe pin budget, least copy speed lost first"


@dataclass(frozen=True)
class Verdict:
    kind: str  # NOTHING, CHANGE or UNKNOWN
    words: str
    threshold: str
    best: Option | None
    ranked: tuple[Option, ...]
    ranked_by: str = BY_TRADE


@dataclass(frozen=True)
class PinBudget:
    """The safe pin budget of this machine and where it was read (the budget document)."""

    safe: int
    path: str


def score(o: Option) -> float:
    """VRAM saved per percent of copy speed lost; a free option scores infinity."""
    lost = o.speed_lost_pct or 0.0
    return math.inf if lost <= 0 else (o.vram_saved or 0.0) / lost


def rank(options: list[Option]) -> list[Option]:
    ready = [o for o in options if o.complete and (o.vram_saved or 0) > 0]
    return sorted(ready, key=lambda o: (-score(o), -(o.vram_saved or 0), o.name))


def rank_under_budget(options: list[Option], held: int, safe: int) -> list[Option]:
    """The options whose pinned bytes after the change fit in `safe`: a measured speed first, the
    least speed lost first among those, then the larger saving."""
    under = [o for o in options if o.applies and o.bytes_saved is not None and held - o.bytes_saved <= safe]
    return sorted(under, key=lambda o: (o.speed is None, o.speed_lost_pct or 0.0, -(o.bytes_saved or 0), o.name))


def over_budget(cost: Cost, options: list[Option], budget: PinBudget, threshold: str) -> Verdict:
    """The verdict of a scope that holds more than the safe pin budget."""
    over = (
        f"holds {format_bytes(cost.held)} pinned, {cost.held / budget.safe:.0%} of the safe pin budget"
        f" {format_bytes(budget.safe)} ({budget.path})"
    )
    ranked = tuple(rank_under_budget(options, cost.held, budget.safe))
    measured = [o for o in ranked if o.speed is not None]
    if not measured:
        lacking = sorted({m.run for o in ranked for m in o.missing})
        return Verdict(
            CHANGE,
            f"change: it {over}; "
            + (
                "no option brings it under the budget"
                if not ranked
                else f"{', '.join(o.name for o in ranked)} would bring it under, without a measured speed"
                + (f": {'; '.join(lacking)}" if lacking else "")
            ),
            threshold,
            None,
            ranked,
            BY_BUDGET,
        )
    best = measured[0]
    return Verdict(
        CHANGE,
        f"change: it {over}; {best.change}: {format_bytes(cost.held - (best.bytes_saved or 0))} pinned,"
        f" under the budget, for {best.speed_lost_pct or 0.0:.0f}% of copy speed",
        threshold,
        best,
        ranked,
        BY_BUDGET,
    )


def judge(
    cost: Cost,
    options: list[Option],
    gpu_memory: int | None,
    step: int,
    small: float = SMALL_SHARE,
    budget: PinBudget | None = None,
) -> Verdict:
    figure = cost.figure
    per_gpu_small = small * gpu_memory if gpu_memory else None
    threshold = f"under {NOISE_STEPS} cost steps ({format_bytes(NOISE_STEPS * step)}) per GPU is noise;" + (
        f" under {small * 100:g}% of the GPU's {format_bytes(gpu_memory)} ({format_bytes(per_gpu_small)})"
        " per GPU is small"
        if per_gpu_small
        else " the GPU's memory is not in the trace, so only the noise threshold applies"
    )
    if budget is not None and budget.safe > 0 and cost.held > budget.safe:
        return over_budget(cost, options, budget, threshold)
    ranked = tuple(rank(options))
    if figure is None:
        # What would give a figure: the store (VRAM) first, then anything else missing.
        missing = sorted({m.run for o in options for m in o.missing}, key=lambda r: (r != RUN_STORE, r))
        return Verdict(
            UNKNOWN,
            "cannot weigh it: no VRAM figure for this scope (no store fit, no cost observed)"
            + (f"; to get one: {missing[0]}" if missing else ""),
            threshold,
            None,
            ranked,
        )
    per_gpu = figure / max(cost.gpus, 1)
    basis = "the fit's bound" if cost.bound is not None else "the trace's observed cost"
    if per_gpu < NOISE_STEPS * step:
        return Verdict(
            NOTHING,
            f"{NOTHING}: {format_bytes(per_gpu)} per GPU ({basis}) is within noise",
            threshold,
            None,
            ranked,
        )
    if per_gpu_small is not None and per_gpu < per_gpu_small:
        return Verdict(
            NOTHING,
            f"{NOTHING}: {format_bytes(per_gpu)} per GPU ({basis}) is {per_gpu / gpu_memory:.3%} of the GPU's memory",
            threshold,
            None,
            ranked,
        )
    if not ranked:
        lacking = sorted({m.run for o in options for m in o.missing})
        return Verdict(
            CHANGE,
            f"worth changing ({format_bytes(per_gpu)} per GPU, {basis}), but no option has all its evidence"
            " for this machine" + (f": {'; '.join(lacking)}" if lacking else ""),
            threshold,
            None,
            ranked,
        )
    best = ranked[0]
    lost = best.speed_lost_pct or 0.0
    return Verdict(
        CHANGE,
        f"{best.change}: saves {format_bytes(best.vram_saved)} of VRAM ({format_bytes(best.bytes_saved or 0)}"
        f" pinned) for {lost:.0f}% of copy speed"
        + (f" ({format_bytes(best.vram_saved / lost)} per percent)" if lost > 0 else ""),
        threshold,
        best,
        ranked,
    )
