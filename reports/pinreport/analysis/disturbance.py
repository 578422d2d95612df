"""Disturbed measurements: what another process did to a run, and what pinreport refuses to judge.

A device-level probe (cudaMemGetInfo, NVML device memory, the PDH adapter counters) sees every
process's allocations, so a neighbour that allocates or frees device memory while a repeat
measures moves its readings. pinbench watches for that (results schema 3, docs/results-schema.md):
  - a run that could not collect clean repeats ends with status "disturbed" and carries
    run["disturbance"] = {"evidence": [{..., "text": "..."}], "attempts": N};
  - in an otherwise ok run, a metric whose probe was disturbed has "disturbed": true (and the
    run's disturbance may list the probe keys in "probes").
pinreport also checks older files itself: a cost or residual below zero by more than one
granule in any repeat (the probe read memory coming back that this repeat never took) is a
disturbed probe, never "nothing used". Every metric of that probe key is then disturbed.

Nothing disturbed is judged (NOT JUDGED, with the evidence), disturbed baseline samples are
left out, and a verdict that disturbance stopped makes the exit code 3 (infrastructure).
"""

from dataclasses import dataclass

from pinreport.base.probe_keys import split_metric
from pinreport.base.units import format_bytes
from pinreport.readers.runs import Metric, Run

DISTURBED = "disturbed"
# The slack below zero when a metric's granule is unknown: pinbench's default --tolerance.
UNKNOWN_GRANULE_SLACK = 2 * 1024**2
MAX_SHOWN = 3  # evidence texts shown per disturbed metric (each repeat may carry its own)


@dataclass(frozen=True)
class Disturbance:
    """What was not judged in one run of the current file, and why."""

    run_id: str
    whole_run: bool  # status "disturbed"; else some probes of an ok run
    metrics: tuple[str, ...]  # the metrics not judged (all of the run's for a whole run)
    evidence: tuple[str, ...]
    attempts: int | None = None

    def describe(self) -> str:
        what = "run disturbed" if self.whole_run else f"{len(self.metrics)} metric(s) of disturbed probes"
        tries = f" after {self.attempts} attempt(s)" if self.attempts else ""
        return f"run {self.run_id}: {what}{tries}: " + "; ".join(self.evidence)


def _repeat_texts(run: Run) -> dict[str, list[str]]:
    """probe key -> the evidence texts of the ok repeats whose disturbance names that probe."""
    out: dict[str, list[str]] = {}
    for r in run.ok_repeats:
        for probe in r.disturbed_probes:
            out.setdefault(probe, []).extend(r.evidence)
    return out


def run_disturbed(run: Run) -> bool:
    return run.status == DISTURBED


def negative_beyond_noise(m: Metric) -> str | None:
    """Why a byte metric's summary shows memory coming back beyond one granule; None when not."""
    if m.unit != "bytes":
        return None
    low = m.low
    if low is None:
        return None
    known = m.granule is not None and m.granule > 0
    slack = m.granule if known else UNKNOWN_GRANULE_SLACK
    if low >= -slack:
        return None
    step = f"one granule ({format_bytes(slack)})" if known else f"{format_bytes(slack)} (granule unknown)"
    return (
        f"reads {format_bytes(low)} in a repeat (median {format_bytes(m.median or 0)}), more than {step} below zero: "
        "memory came back that this repeat never took (another process freed it)"
    )


def disturbed_metrics(run: Run) -> dict[str, str]:
    """metric -> why, for every metric of an ok run that must not be judged: those pinbench
    marked disturbed, and every metric of a probe key one of whose cost or residual metrics
    is negative beyond noise (module docstring). Asked of every run of every baseline file, it
    reads each metric's flags (Metrics.flags) and builds a Metric only for one whose smallest repeat
    is below zero."""
    out: dict[str, str] = {}
    # run["disturbance"] of an ok run summarises attempts that were retried and superseded: its
    # metrics come from the clean attempts, so only a metric's own flag marks it. The flag's
    # evidence is on the ok repeats that set it (their disturbance names the probes, as
    # summarize_run_metrics() in harness/src/results/run_metrics.cpp reads them); the run's
    # own evidence stands in only where no repeat has any (files written before repeats did).
    by_probe: dict[str, list[str]] | None = None  # read only where a metric is marked
    evidence = list(run.evidence)
    bad_keys: dict[str, str] = {}
    for name, disturbed, low in run.metrics.flags():
        if disturbed:
            if by_probe is None:
                by_probe = _repeat_texts(run)
            own = [t for probe, texts in by_probe.items() if name.endswith("." + probe) for t in texts]
            texts = list(dict.fromkeys(own)) or evidence
            shown = "; ".join(texts[:MAX_SHOWN])
            more = f" (and {len(texts) - MAX_SHOWN} more)" if len(texts) > MAX_SHOWN else ""
            out[name] = f"pinbench marked this probe disturbed: {shown or 'no evidence recorded'}{more}"
        if low is None or low >= 0:
            continue
        parts = split_metric(name)
        why = negative_beyond_noise(run.metrics[name]) if parts is not None else None
        if why is not None and parts[1] not in bad_keys:
            bad_keys[parts[1]] = f"{name} {why}"
    for name in run.metrics:
        parts = split_metric(name)
        if parts is not None and parts[1] in bad_keys and name not in out:
            why = bad_keys[parts[1]]
            out[name] = why if why.startswith("pinbench") else f"disturbed probe {parts[1]}: {why}"
    return out


def keys_of(disturbed: dict[str, str]) -> dict[str, str]:
    """probe key -> why, from a run's disturbed metrics (disturbed_metrics): the keys whose cost
    or residual metrics are disturbed."""
    out: dict[str, str] = {}
    for name, why in disturbed.items():
        parts = split_metric(name)
        if parts is not None:
            out.setdefault(parts[1], why)
    return out


def disturbed_keys(run: Run) -> dict[str, str]:
    """probe key -> why, for the keys of an ok run whose cost or residual metrics are disturbed."""
    return keys_of(disturbed_metrics(run))


def of_run(run: Run, disturbed: dict[str, str] | None = None) -> Disturbance | None:
    """The disturbance of one run of the current file, or None when it was measured cleanly
    (`disturbed`: its disturbed_metrics, where the caller has them already)."""
    if run_disturbed(run):
        texts = run.evidence or (run.reason or "pinbench marked the run disturbed (no evidence recorded)",)
        return Disturbance(run.id, True, tuple(sorted(run.metrics)), tuple(texts), run.attempts)
    if run.status != "ok":
        return None
    bad = disturbed_metrics(run) if disturbed is None else disturbed
    if not bad:
        return None
    reasons = tuple(dict.fromkeys(bad.values()))
    return Disturbance(run.id, False, tuple(sorted(bad)), reasons, run.attempts)
