"""The one pipeline: a trace and its evidence in, one Advice value out; every output (text.py,
json_doc.py, page.py) only reads it. Pure over its inputs: the caller reads the files."""

from collections.abc import Iterable
from dataclasses import dataclass, field

from pinreport.advice.cost import (
    Cost,
    Observed,
    gpu_memory,
    gpus_used,
    held_at_peak,
    make_fits,
    observed_cost,
    resolution,
    scope_cost,
)
from pinreport.advice.evidence import RUN_STORE, Benches, Machine, Missing, Source, StoredRun, budget_for
from pinreport.advice.options import Context, Option, all_options
from pinreport.advice.verdict import CHANGE, SMALL_SHARE, UNKNOWN, PinBudget, Verdict, judge
from pinreport.readers.budget import BudgetDocument
from pinreport.readers.trace import TraceFile

DEFAULT_RING = 64 * 1024 * 1024  # the staging ring's default: K 2 slots x C 32 MiB (benchmarks/README.md)


@dataclass(frozen=True)
class ScopeAdvice:
    cost: Cost
    options: tuple[Option, ...]
    verdict: Verdict


@dataclass(frozen=True)
class Advice:
    trace_path: str
    machine: Machine
    store_given: bool
    replayed: bool
    gpus: int
    gpu_memory: int | None
    step: int
    program: ScopeAdvice
    sites: tuple[ScopeAdvice, ...]
    budget: Source | None
    notes: tuple[str, ...] = ()
    missing: tuple[Missing, ...] = ()  # evidence the whole advice lacks (a store, a budget)
    problems: tuple[str, ...] = field(default=())  # inputs that could not be read (exit 2)

    @property
    def exit_code(self) -> int:
        """0 nothing worth changing, 1 a change is advised, 3 no cost figure at all (as `trace`'s
        NOT_MEASURED); bad inputs (exit 2) are the caller's."""
        kind = self.program.verdict.kind
        return 3 if kind == UNKNOWN else 1 if kind == CHANGE else 0


def _scope(
    name: str, holdings, ctx: Context, observed: Observed | None, budget: PinBudget | None, memory, step, small
) -> ScopeAdvice:
    cost = scope_cost(name, holdings, ctx.fits, ctx.gpus, observed, budget.safe if budget else None)
    options = all_options(ctx, cost)
    return ScopeAdvice(cost, tuple(options), judge(cost, options, memory, step, small, budget))


def build_advice(
    trace: TraceFile,
    runs: Iterable[StoredRun] = (),
    benches: Benches | None = None,
    budget: BudgetDocument | None = None,
    *,
    store_given: bool = False,
    replayed: bool = False,
    ring_bytes: int = DEFAULT_RING,
    op: str = "h2d",
    small: float = SMALL_SHARE,
) -> Advice:
    runs = list(runs)
    benches = benches or Benches()
    machine = Machine.from_environment(trace.environment)
    gpus = gpus_used(trace)
    fits = make_fits(trace, runs, gpus)
    observed = observed_cost(trace)
    notes: list[str] = list(fits.notes)
    missing: list[Missing] = []
    if not store_given:
        missing.append(
            Missing(
                "store",
                "no --store: the VRAM figures are the trace's own (none where no device sample saw the peak);"
                " a store of this machine adds the fit with its bound, per site and for a peak too short to sample,"
                " and the register-window runs",
                RUN_STORE,
            )
        )
    elif not fits.by_family:
        missing.append(
            Missing(
                "store fit",
                f"the store holds no usable fit for {trace.key.describe_group()}, driver {trace.key.release}",
                RUN_STORE,
            )
        )
    if replayed:
        notes.append("REPLAYED DATA: the store's fits and runs are replayed files, not measurements")
    for b in benches.files:
        if b.replayed:
            notes.append(f"REPLAYED DATA: {b.path} was written by the replay backend, not measured")
    replayed = replayed or any(b.replayed for b in benches.files)
    if observed.bytes is None:
        notes.append(f"observed cost not used: {observed.why}")
    state = trace.tracing.state
    if state != "on":
        notes.append(f"tracing was {state}: the calls may be incomplete, so may the bytes held")
    got = budget_for(budget, machine)
    budget_source, pin_budget = None, None
    if isinstance(got, Missing):
        missing.append(got)
    else:
        budget_source = got[1]
        pin_budget = PinBudget(got[0].safe_budget, got[1].path) if got[0].safe_budget is not None else None
    trace_source = Source("trace", trace.path, "calls and notes", machine.words())
    held = trace.pinned.peak_bytes
    ctx = Context(
        trace=trace,
        machine=machine,
        fits=fits,
        gpus=gpus,
        benches=benches,
        runs=runs,
        ring_bytes=ring_bytes,
        op=op,
        store_given=store_given,
        program_observed=observed,
        program_held=held,
        trace_source=trace_source,
        notes=trace.notes,
    )
    memory = gpu_memory(trace)
    step = resolution(trace, fits)
    by_site = held_at_peak(trace)
    program = _scope(
        "program", [h for hs in by_site.values() for h in hs], ctx, observed, pin_budget, memory, step, small
    )
    sites = tuple(
        _scope(site, hs, ctx, None, pin_budget, memory, step, small)
        for site, hs in sorted(by_site.items(), key=lambda kv: -sum(h.bytes for h in kv[1]))
    )
    return Advice(
        trace_path=trace.path,
        machine=machine,
        store_given=store_given,
        replayed=replayed,
        gpus=gpus,
        gpu_memory=memory,
        step=step,
        program=program,
        sites=sites,
        budget=budget_source,
        notes=tuple(notes),
        missing=tuple(missing),
        problems=tuple(benches.problems),
    )
