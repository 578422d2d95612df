"""A `pinbench trace` file (docs/trace.md) judged against the store: what the program pinned at
its peak, by API and call site; the device cost observed at the peak; the cost the store's fit
for this driver release, model and GPU predicts for those bytes (with its bound); and the
reserve it recommends per GPU. Where the observation and the fit disagree beyond the bound, it
says so.

The observed cost is the trace's own figure (change in device-level used minus the traced
processes' own per-process figure, from the NVML samples the harness took while the peak was
held); a neighbour that changed its device memory meanwhile makes it DISTURBED, never a verdict.
"""

from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from pinreport.analysis.fit import CostFit, FitKey, fit_all, recommend
from pinreport.base import catalog
from pinreport.base.exit_codes import EXIT_INFRASTRUCTURE, EXIT_OK, EXIT_REGRESSION
from pinreport.base.units import format_bytes as size_label
from pinreport.readers.results import ResultsFile
from pinreport.readers.store_key import StoreKey
from pinreport.readers.trace import ApiCalls, TraceFile

# Trace API families -> the store's api variants that measure the same driver path, preferred
# first: the harness's (family_api_variants in harness/src/cuda/traced_apis.cpp), as the
# catalog exports them.
STORE_APIS = catalog.family_api_variants()
DEDICATED_FAMILY = "nvml.*.used"  # the dedicated-memory probe the rule is judged on (Linux)


class TraceVerdict(StrEnum):
    AGREES = "AGREES"  # observed within the fit's bound of its prediction
    DISAGREES = "DISAGREES"  # outside the bound
    BELOW_RESOLUTION = "BELOW_RESOLUTION"  # predicted and observed under two probe steps: proves nothing
    DISTURBED = "DISTURBED"  # another process changed its device memory while the peak was held
    NOT_MEASURED = "NOT_MEASURED"  # no device figure at the peak (no NVML, peak too short, nothing pinned)
    NO_FIT = "NO_FIT"  # the store has no usable fit for this group, release and API


@dataclass(frozen=True)
class DeviceJudgement:
    nvml_index: int
    observed: int | None
    predicted: float | None
    bound: float | None  # the fit's upper bound at the peak's bytes (summed over families)
    verdict: TraceVerdict
    why: str
    reserve_per_gpu: float | None


@dataclass(frozen=True)
class TraceJudgement:
    trace: TraceFile
    release: str
    peak_bytes: int
    by_family: dict[str, int]
    fits_used: dict[str, str]  # family -> store api whose fit was used
    devices: list[DeviceJudgement]
    notes: list[str] = field(default_factory=list)

    @property
    def verdict(self) -> TraceVerdict:
        order = list(TraceVerdict)
        worst = [d.verdict for d in self.devices] or [TraceVerdict.NOT_MEASURED]
        # DISAGREES first, then the reasons nothing could be said, AGREES last.
        rank = {
            TraceVerdict.DISAGREES: 0,
            TraceVerdict.DISTURBED: 1,
            TraceVerdict.NO_FIT: 2,
            TraceVerdict.NOT_MEASURED: 3,
            TraceVerdict.BELOW_RESOLUTION: 4,
            TraceVerdict.AGREES: 5,
        }
        return min(worst, key=lambda v: (rank[v], order.index(v)))


def _fit_for(fits: dict[FitKey, CostFit], key: StoreKey, release: str, family: str) -> tuple[str, CostFit] | None:
    for api in STORE_APIS.get(family, ()):
        for k, f in sorted(fits.items(), key=lambda kv: kv[0].gpus):
            if (
                k.group == key.group
                and k.release == release
                and k.api == api
                and k.family == DEDICATED_FAMILY
                and f.usable
            ):
                return api, f
    return None


def traced_pids(trace: TraceFile) -> set[int]:
    """The program's processes, as traced_pids() in harness/src/trace/trace_document.cpp: the
    supervisor, every process that loaded the injection and every process that made a call."""
    return {trace.root_pid or 0, *trace.tracing.pids, *(c.pid for c in trace.calls)}


def sample_costs(trace: TraceFile, nvml_index: int = 0) -> list[tuple[float, int]]:
    """(t_ms, device used minus the program's own used) for each consistent sample of one
    device: the figure whose change from the baseline is the cost (docs/trace.md)."""
    traced = traced_pids(trace)
    out = []
    for s in trace.samples:  # optional: no NVML, no samples
        if not s.consistent:
            continue
        for d in s.devices:
            if d.nvml_index == nvml_index and d.used is not None and d.processes is not None:
                own = sum(b for pid, b in d.processes.items() if pid in traced)
                out.append((s.t_ms, d.used - own))
    return out


def cost_step(trace: TraceFile, nvml_index: int = 0) -> int | None:
    """The step in which the device cost moves: the most frequent change between consecutive
    consistent samples while pinned bytes were held (2 MiB on the H200, the same as the step a
    1 GiB buffer costs). A cost read to the step cannot be told from its neighbours, so the fit
    comparison allows one step either way. None where the cost never moved."""
    points = trace.pinned.timeline
    if not points:
        return None
    start = points[0][0]
    costs = [c for t_ms, c in sample_costs(trace, nvml_index) if t_ms >= start]
    changes: dict[int, int] = {}
    for a, b in zip(costs, costs[1:], strict=False):
        if a != b:
            changes[abs(b - a)] = changes.get(abs(b - a), 0) + 1
    if not changes:
        return None
    return max(changes.items(), key=lambda kv: (kv[1], -kv[0]))[0]


def judge_trace(trace: TraceFile, stored: Iterable[ResultsFile]) -> TraceJudgement:
    """Pure over the trace and the stored results files given (those of the trace's group and
    driver release count)."""
    key = trace.key
    release = trace.environment.release or key.release
    files = [f for f in stored if f.environment.key.group == key.group and f.environment.key.release == key.release]
    fits = fit_all((f.environment.key, f.runs) for f in files)
    peak = trace.pinned.peak_bytes
    by_family = {f: b for f, b in trace.pinned.peak_by_family.items() if b > 0}
    notes: list[str] = []
    chosen: dict[str, tuple[str, CostFit]] = {}
    for family in by_family:
        found = _fit_for(fits, key, key.release, family)
        if found:
            chosen[family] = found
    missing = sorted(set(by_family) - set(chosen))
    predicted = bound = None
    granule = 0
    if by_family and not missing:
        predicted = sum(f.predict(by_family[fam]) for fam, (_, f) in chosen.items())
        bound = sum(f.upper_bound(by_family[fam]) for fam, (_, f) in chosen.items())
        granule = max(int(f.granule or 0) for _, f in chosen.values())
        if len(chosen) > 1:
            notes.append("the prediction sums one fit per API family; each fit's base is counted once per family")
        for fam, (_, f) in chosen.items():
            if f.extrapolates(by_family[fam]):
                notes.append(f"{fam}: {size_label(by_family[fam])} is beyond the measured sizes (extrapolated)")
    recs = recommend(fits, peak, 1, {key.group: key.release}) if peak else []
    reserve = max((r.per_gpu for r in recs), default=None)

    devices = []
    for d in trace.cost_at_peak.devices:
        observed = d.cost_bytes
        idx = d.nvml_index
        if trace.cost_at_peak.baseline_before_context:
            verdict = TraceVerdict.NOT_MEASURED
            why = (
                "no device sample showed the program's context before its first pinning call: the"
                " figure would include the context's own device overhead (docs/trace.md)"
            )
        elif d.disturbances:
            verdict, why = TraceVerdict.DISTURBED, "; ".join(d.disturbances)
        elif observed is None:
            verdict, why = TraceVerdict.NOT_MEASURED, d.why or "no device figure at the peak"
        elif predicted is None:
            verdict = TraceVerdict.NO_FIT
            why = (
                f"the store has no usable {DEDICATED_FAMILY} fit for {', '.join(missing)} on {key.gpu}, "
                f"{key.driver_model}, driver {key.release}"
            )
        else:
            step = max(cost_step(trace, idx) or 0, granule)
            half = max(bound - predicted, step)
            if max(abs(observed), abs(predicted)) < 2 * step:
                verdict, why = TraceVerdict.BELOW_RESOLUTION, f"under two cost steps ({size_label(2 * step)})"
            else:
                inside = abs(observed - predicted) <= half
                verdict = TraceVerdict.AGREES if inside else TraceVerdict.DISAGREES
                why = (
                    f"observed {size_label(observed)}, predicted {size_label(round(predicted))}"
                    f" ± {size_label(round(half))} (the fit's bound, or one cost step of {size_label(step)})"
                )
        devices.append(
            DeviceJudgement(
                idx,
                observed,
                predicted,
                bound,
                verdict,
                why,
                reserve,
            )
        )
    fits_used = {fam: api for fam, (api, _) in chosen.items()}
    return TraceJudgement(trace, release, peak, by_family, fits_used, devices, notes)


def calls_by_api(trace: TraceFile) -> dict[str, ApiCalls]:
    return dict(trace.pinned.by_api)


def pinning_processes(trace: TraceFile) -> dict[str, int]:
    """Held bytes at the peak by where the pinning happened: the main process or another one
    (a worker, a child), and by thread (the main thread or another, e.g. pin_memory's)."""
    # The program's first CUDA process (the tracer's supervisor, root_pid, forks it) unless it
    # named its main process itself.
    root = trace.root_pid
    first = trace.tracing.pids[0] if trace.tracing.pids else root
    main = trace.notes.main_pid if trace.notes.main_pid is not None else first
    out: dict[str, int] = {}
    for h in trace.pinned.at_peak:
        where = "main process" if h.pid in (main, root) else f"process {h.pid}"
        out[where] = out.get(where, 0) + h.bytes
    return out


# The calls that allocate or register host memory (api_effect "acquire" in the harness).
ACQUIRING = tuple(a.api for a in catalog.traced_apis() if a.effect == "acquire")


def asked_sizes(trace: TraceFile) -> list[tuple[int, int]]:
    """(bytes, how many successful calls asked for exactly that), largest count first: what an
    allocator really asks the driver for, e.g. PyTorch's power-of-two blocks."""
    counts: dict[int, int] = {}
    for c in trace.calls:
        if c.api in ACQUIRING and c.result == 0:
            counts[c.bytes] = counts.get(c.bytes, 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], -kv[0]))


def rounding_note(trace: TraceFile) -> str:
    """Where the program noted its batch bytes: the driver's most asked size against them."""
    batch = trace.notes.batch_bytes
    sizes = asked_sizes(trace)
    if batch is None or batch <= 0 or not sizes:
        return ""
    size, n = sizes[0]
    return (
        f"batches of {size_label(batch)} were pinned as {n} blocks of {size_label(size)}"
        f" ({size / batch:.2f}x the batch bytes)"
    )


def exit_code(j: TraceJudgement) -> int:
    """0 AGREES (or nothing to judge below resolution), 1 DISAGREES, 3 when it could not be
    measured or judged (DISTURBED, NOT_MEASURED, NO_FIT), as pinreport's infrastructure code."""
    v = j.verdict
    if v == TraceVerdict.DISAGREES:
        return EXIT_REGRESSION
    if v in (TraceVerdict.AGREES, TraceVerdict.BELOW_RESOLUTION):
        return EXIT_OK
    return EXIT_INFRASTRUCTURE
