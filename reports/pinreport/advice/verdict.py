"""The verdict in plain words, with its threshold.

Nothing is worth changing when the cost is within noise (the fit's bound per GPU under two cost
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


@dataclass(frozen=True)
class Verdict:
    kind: str  # NOTHING, CHANGE or UNKNOWN
    words: str
    threshold: str
    best: Option | None
    ranked: tuple[Option, ...]


def score(o: Option) -> float:
    """VRAM saved per percent of copy speed lost; a free option scores infinity."""
    lost = o.speed_lost_pct or 0.0
    return math.inf if lost <= 0 else (o.vram_saved or 0.0) / lost


def rank(options: list[Option]) -> list[Option]:
    ready = [o for o in options if o.complete and (o.vram_saved or 0) > 0]
    return sorted(ready, key=lambda o: (-score(o), -(o.vram_saved or 0), o.name))


def judge(cost: Cost, options: list[Option], gpu_memory: int | None, step: int, small: float = SMALL_SHARE) -> Verdict:
    figure = cost.figure
    per_gpu_small = small * gpu_memory if gpu_memory else None
    threshold = f"under {NOISE_STEPS} cost steps ({format_bytes(NOISE_STEPS * step)}) per GPU is noise;" + (
        f" under {small * 100:g}% of the GPU's {format_bytes(gpu_memory)} ({format_bytes(per_gpu_small)})"
        " per GPU is small"
        if per_gpu_small
        else " the GPU's memory is not in the trace, so only the noise threshold applies"
    )
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
