"""What pinning costs now, for the program and for each call site: the bytes held at the peak
(by API family and block size), the VRAM the store's fit predicts for them with its upper bound,
times the GPUs the program used, the device cost the trace observed (never a disturbed one), and
the share of the pin budget.

The fit is the one `pinreport trace` uses (analysis/trace.py: the dedicated-memory family of the
trace's group and driver release, the family's store APIs in order). With a GPU count above one,
a fit of runs on that many GPUs is preferred (each GPU's own points); else the 1-GPU fit, assuming
each GPU pays the same, as `pinreport reserve` does, and said in the notes. A peak held too
briefly for any device sample is costed from the fit all the same.

A call site is costed as if it were alone: each of its families' fits counts its base once, so
the sites' costs do not add up to the program's."""

from collections.abc import Iterable
from dataclasses import dataclass, field

from pinreport.advice.evidence import Machine, Source, StoredRun
from pinreport.analysis.fit import CostFit, FitKey, fit_all
from pinreport.analysis.trace import DEDICATED_FAMILY, STORE_APIS, cost_step, traced_pids
from pinreport.base import catalog
from pinreport.base.units import format_bytes
from pinreport.readers.trace import Holding, TraceFile

FAMILY_OF_API = {a.api: a.family for a in catalog.traced_apis()}
MIB = 1024 * 1024


@dataclass(frozen=True)
class FamilyFit:
    family: str
    api: str
    fit: CostFit
    fit_gpus: int
    source: Source


@dataclass
class Fits:
    """The store's fits for one trace: its group and driver release, per traced family."""

    by_family: dict[str, FamilyFit] = field(default_factory=dict)
    gpus: int = 1
    notes: list[str] = field(default_factory=list)

    def fit_for(self, family: str) -> FamilyFit | None:
        return self.by_family.get(family)

    def predict(self, by_family: dict[str, int]) -> tuple[float, float] | None:
        """(predicted, upper bound) per GPU for these bytes; None where a family has no fit."""
        held = {f: b for f, b in by_family.items() if b > 0}
        if not held:
            return 0.0, 0.0
        if any(f not in self.by_family for f in held):
            return None
        pred = sum(self.by_family[f].fit.predict(b) for f, b in held.items())
        bound = sum(self.by_family[f].fit.upper_bound(b) for f, b in held.items())
        return max(pred, 0.0), max(bound, 0.0)


def make_fits(trace: TraceFile, runs: Iterable[StoredRun], gpus: int) -> Fits:
    key = trace.key
    runs = [r for r in runs if r.environment.key == key]
    fits = fit_all((r.environment.key, r.runs) for r in runs)
    paths = sorted({r.path for r in runs})
    replayed = any(r.replayed for r in runs)
    machine = Machine.from_environment(trace.environment).words()
    out = Fits(gpus=gpus)
    for family, apis in STORE_APIS.items():
        chosen: tuple[FitKey, CostFit] | None = None
        for api in apis:
            usable = [
                (k, f)
                for k, f in fits.items()
                if k.group == key.group
                and k.release == key.release
                and k.api == api
                and k.family == DEDICATED_FAMILY
                and f.usable
            ]
            # This GPU count first, else one GPU (each GPU assumed to pay the same).
            usable.sort(key=lambda kf: (kf[0].gpus != gpus, kf[0].gpus != 1, kf[0].gpus))
            if usable:
                chosen = usable[0]
                break
        if chosen is None:
            continue
        k, f = chosen
        item = f"{k.api} {DEDICATED_FAMILY} fit of {k.gpus}-GPU runs, {f.n} samples, driver {k.release}"
        src = Source("store fit", ", ".join(paths), item, machine, replayed)
        out.by_family[family] = FamilyFit(family, k.api, f, k.gpus, src)
        if gpus > 1 and k.gpus == 1:
            out.notes.append(f"{family}: from 1-GPU runs: assumes each of the {gpus} GPUs pays the same")
    return out


def gpus_used(trace: TraceFile) -> int:
    """The GPUs the program held a context on: the NVML devices whose process list shows one of
    its processes in any sample; else the devices its pinning calls ran on; at least 1."""
    traced = traced_pids(trace)
    seen = set()
    for s in trace.samples:
        for d in s.devices:
            if any(p in traced for p in (d.processes or {})):
                seen.add(d.nvml_index)
    if not seen:
        seen = {c.device for c in trace.calls if c.device is not None}
    return max(len(seen), 1)


def gpu_memory(trace: TraceFile) -> int | None:
    """The smallest total memory of the trace's GPUs (NVML's, else the runtime's)."""
    return trace.environment.memory_total


def resolution(trace: TraceFile, fits: Fits) -> int:
    """The step a device cost is read in: the fits' granule or the trace's own cost step."""
    steps = [int(f.fit.granule or 0) for f in fits.by_family.values()]
    steps.append(cost_step(trace) or 0)
    return max(steps) or 2 * MIB


@dataclass(frozen=True)
class Observed:
    """The device cost the trace saw at the peak, summed over its GPUs, or why not."""

    bytes: int | None
    why: str


def observed_cost(trace: TraceFile) -> Observed:
    cap = trace.cost_at_peak
    if cap.baseline_before_context:
        return Observed(None, "no sample showed the program's context before its first pin (docs/trace.md)")
    total, why = 0, []
    devices = cap.devices
    for d in devices:
        idx = d.nvml_index
        if d.disturbances:
            why.append(f"GPU {idx} DISTURBED ({'; '.join(d.disturbances)}): not used")
        elif d.cost_bytes is None:
            why.append(f"GPU {idx}: {d.why or 'no device figure at the peak'}")
        else:
            total += d.cost_bytes
    if why or not devices:
        return Observed(None, "; ".join(why) or "the trace has no device figure at the peak")
    return Observed(total, f"observed at the peak over {len(devices)} GPU(s)")


@dataclass(frozen=True)
class Cost:
    """What one scope (the program, or one call site) costs now."""

    scope: str  # "program" or the call site
    held: int  # bytes held at the peak
    by_family: dict[str, int]
    blocks: dict[int, int]  # block bytes -> how many were held at the peak
    apis: tuple[str, ...]
    gpus: int
    predicted: float | None  # VRAM over all GPUs, from the fit
    bound: float | None
    observed: Observed | None  # the program only
    budget_share: float | None  # held / the safe pin budget
    fit_sources: tuple[Source, ...]
    notes: tuple[str, ...] = ()

    @property
    def figure(self) -> float | None:
        """The cost the verdict weighs: the fit's bound, else the trace's own observation."""
        if self.bound is not None:
            return self.bound
        return float(self.observed.bytes) if self.observed and self.observed.bytes is not None else None


def held_at_peak(trace: TraceFile) -> dict[str, list[Holding]]:
    """The holdings at the peak by call site."""
    out: dict[str, list[Holding]] = {}
    for h in trace.pinned.at_peak:
        out.setdefault(h.site, []).append(h)
    return out


def scope_cost(
    scope: str,
    holdings: list[Holding],
    fits: Fits,
    gpus: int,
    observed: Observed | None,
    safe_budget: int | None,
) -> Cost:
    by_family: dict[str, int] = {}
    blocks: dict[int, int] = {}
    for h in holdings:
        fam = FAMILY_OF_API.get(h.api, "unknown")
        by_family[fam] = by_family.get(fam, 0) + h.bytes
        blocks[h.bytes] = blocks.get(h.bytes, 0) + 1
    held = sum(by_family.values())
    per_gpu = fits.predict(by_family)
    notes = []
    for fam, b in sorted(by_family.items()):
        ff = fits.fit_for(fam)
        if ff is None:
            notes.append(f"{fam}: no usable store fit for {format_bytes(b)}")
        elif ff.fit.extrapolates(b):
            notes.append(f"{fam}: {format_bytes(b)} is beyond the fit's measured sizes (extrapolated)")
    sources = tuple(fits.by_family[f].source for f in sorted(by_family) if f in fits.by_family)
    return Cost(
        scope=scope,
        held=held,
        by_family=by_family,
        blocks=dict(sorted(blocks.items(), key=lambda kv: (-kv[1], -kv[0]))),
        apis=tuple(sorted({h.api for h in holdings})),
        gpus=gpus,
        predicted=per_gpu[0] * gpus if per_gpu else None,
        bound=per_gpu[1] * gpus if per_gpu else None,
        observed=observed,
        budget_share=held / safe_budget if safe_budget else None,
        fit_sources=sources,
        notes=tuple(notes),
    )
