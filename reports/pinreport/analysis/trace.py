"""A `pinbench trace` file (docs/trace.md) judged against the store: what the program pinned at
its peak, by API and call site; the device cost observed at the peak; the cost the store's fit
for this driver release, model and GPU predicts for those bytes (with its bound); and the
reserve it recommends per GPU. Where the observation and the fit disagree beyond the bound, it
says so.

The observed cost is the trace's own figure (change in device-level used minus the traced
processes' own per-process figure, from the NVML samples the harness took while the peak was
held); a neighbour that changed its device memory meanwhile makes it DISTURBED, never a verdict.
"""

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import jsonschema
from referencing import Registry, Resource

from pinreport.analysis.fit import CostFit, FitKey, fit_all, recommend
from pinreport.base import catalog
from pinreport.base.exit_codes import EXIT_INFRASTRUCTURE, EXIT_OK, EXIT_REGRESSION
from pinreport.base.input_file import TRACE_LIMIT
from pinreport.base.schema import results_json_schema_text, trace_json_schema_text
from pinreport.base.units import format_bytes as size_label
from pinreport.readers.environment import Environment
from pinreport.readers.load import read_versioned_document
from pinreport.readers.model import Run
from pinreport.readers.store_key import StoreKey

TRACE_SCHEMA = "pinbench-trace"
TRACE_VERSIONS = (1,)

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
class TraceFile:
    path: str
    doc: dict[str, Any]

    @property
    def pinned(self) -> dict[str, Any]:
        return self.doc["pinned"]

    @cached_property
    def environment(self) -> Environment:
        """The environment record the tracer wrote (as a results file's), read once."""
        return Environment.from_json(self.doc.get("environment"))

    @property
    def key(self) -> StoreKey:
        return self.environment.key


@cache
def _trace_validator() -> jsonschema.Draft202012Validator:
    """docs/trace.schema.json (its copy in data/), whose environment is the results schema's."""
    results = json.loads(results_json_schema_text())
    registry = Registry().with_resource(results["$id"], Resource.from_contents(results))
    return jsonschema.Draft202012Validator(json.loads(trace_json_schema_text()), registry=registry)


def load_trace(path: str | Path) -> TraceFile:
    """Reads and validates a trace as results files are (load.py): bounded (TRACE_LIMIT), strict
    JSON, then the trace schema; BadInputError "FILE: FIELD PATH: message" on any problem."""
    doc = read_versioned_document(
        path, TRACE_LIMIT, TRACE_SCHEMA, TRACE_VERSIONS, TRACE_VERSIONS, "trace", _trace_validator()
    )
    return TraceFile(str(path), doc)


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
    t = trace.doc
    pids = {int(t.get("root_pid") or 0)}
    pids |= {int(p["pid"]) for p in t["tracing"].get("processes", [])}
    pids |= {int(c["pid"]) for c in t.get("calls", [])}
    return pids


def sample_costs(trace: TraceFile, nvml_index: int = 0) -> list[tuple[float, int]]:
    """(t_ms, device used minus the program's own used) for each consistent sample of one
    device: the figure whose change from the baseline is the cost (docs/trace.md)."""
    traced = traced_pids(trace)
    out = []
    for s in (trace.doc.get("device") or {}).get("samples", []):  # optional: no NVML, no samples
        if s.get("consistent") is False:
            continue
        for d in s["devices"]:
            if d["nvml_index"] == nvml_index and d.get("used") is not None and d.get("processes") is not None:
                own = sum(int(v) for k, v in d["processes"].items() if int(k) in traced)
                out.append((float(s["t_ms"]), int(d["used"]) - own))
    return out


def cost_step(trace: TraceFile, nvml_index: int = 0) -> int | None:
    """The step in which the device cost moves: the most frequent change between consecutive
    consistent samples while pinned bytes were held (2 MiB on the H200, the same as the step a
    1 GiB buffer costs). A cost read to the step cannot be told from its neighbours, so the fit
    comparison allows one step either way. None where the cost never moved."""
    points = trace.pinned.get("timeline") or []
    if not points:
        return None
    start = float(points[0][0])
    costs = [c for t_ms, c in sample_costs(trace, nvml_index) if t_ms >= start]
    changes: dict[int, int] = {}
    for a, b in zip(costs, costs[1:], strict=False):
        if a != b:
            changes[abs(b - a)] = changes.get(abs(b - a), 0) + 1
    if not changes:
        return None
    return max(changes.items(), key=lambda kv: (kv[1], -kv[0]))[0]


def judge_trace(trace: TraceFile, store_docs: Iterable[tuple[StoreKey, dict[str, Any]]]) -> TraceJudgement:
    """Pure over the trace and the store documents given (those of the trace's group)."""
    key = trace.key
    release = trace.environment.release or key.release
    docs = [(k, d) for k, d in store_docs if k.group == key.group and k.release == key.release]
    fits = fit_all((k, map(Run.from_json, d.get("runs", []))) for k, d in docs)
    peak = int(trace.pinned.get("peak_bytes") or 0)
    by_family = {f: int(b) for f, b in (trace.pinned.get("peak_by_family") or {}).items() if int(b) > 0}
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
    for d in trace.doc["cost_at_peak"].get("devices", []):
        observed = d.get("cost_bytes")
        idx = int(d.get("nvml_index", 0))
        if trace.doc["cost_at_peak"].get("baseline_before_context"):
            verdict = TraceVerdict.NOT_MEASURED
            why = (
                "no device sample showed the program's context before its first pinning call: the"
                " figure would include the context's own device overhead (docs/trace.md)"
            )
        elif d.get("disturbances"):
            verdict, why = TraceVerdict.DISTURBED, "; ".join(d["disturbances"])
        elif observed is None:
            verdict, why = TraceVerdict.NOT_MEASURED, d.get("why") or "no device figure at the peak"
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


def calls_by_api(trace: TraceFile) -> dict[str, dict[str, int]]:
    return {api: dict(v) for api, v in (trace.pinned.get("by_api") or {}).items()}


def pinning_processes(trace: TraceFile) -> dict[str, int]:
    """Held bytes at the peak by where the pinning happened: the main process or another one
    (a worker, a child), and by thread (the main thread or another, e.g. pin_memory's)."""
    # The program's first CUDA process (the tracer's supervisor, root_pid, forks it) unless it
    # named its main process itself.
    root = trace.doc.get("root_pid")
    first = next((p.get("pid") for p in trace.doc["tracing"].get("processes", [])), root)
    main = trace.doc.get("notes", {}).get("main_pid", first)
    out: dict[str, int] = {}
    for h in trace.pinned.get("at_peak", []):
        where = "main process" if h.get("pid") in (main, root) else f"process {h.get('pid')}"
        out[where] = out.get(where, 0) + int(h.get("bytes", 0))
    return out


# The calls that allocate or register host memory (api_effect "acquire" in the harness).
ACQUIRING = tuple(a.api for a in catalog.traced_apis() if a.effect == "acquire")


def asked_sizes(trace: TraceFile) -> list[tuple[int, int]]:
    """(bytes, how many successful calls asked for exactly that), largest count first: what an
    allocator really asks the driver for, e.g. PyTorch's power-of-two blocks."""
    counts: dict[int, int] = {}
    for c in trace.doc.get("calls", []):
        if c.get("api") in ACQUIRING and c.get("result") == 0:
            counts[int(c["bytes"])] = counts.get(int(c["bytes"]), 0) + 1
    return sorted(counts.items(), key=lambda kv: (-kv[1], -kv[0]))


def rounding_note(trace: TraceFile) -> str:
    """Where the program noted its batch bytes: the driver's most asked size against them."""
    batch = trace.doc.get("notes", {}).get("batch_bytes")
    sizes = asked_sizes(trace)
    if not isinstance(batch, int) or batch <= 0 or not sizes:
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
