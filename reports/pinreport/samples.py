"""Per-repeat samples of each run metric, rebuilt from the raw snapshots and timings.

A results file's `metrics` hold summaries only (median, min, max, mad); the rank test and the
separation rule need the samples. This mirrors compute_run_metrics
(harness/src/results/run_metrics.cpp) exactly: ok repeats only, relative to the
"after_context" snapshot, a key missing in any ok repeat gives no samples (never a 0).
"""

import math
from dataclasses import dataclass
from typing import Any

BASELINE_LABEL = "after_context"
# metric prefix "<kind>.<label>." -> the snapshot label it reads
_TARGETS = {
    "cost.after_alloc.": "after_alloc",
    "cost.after_first_use.": "after_first_use",
    "residual.after_free.": "after_free",
}


@dataclass(frozen=True)
class KeyInfo:
    direction: str  # "usage" (goes up when consumed), "available" (goes down), "fixed"
    budget: str  # "dedicated" or "shared"


def describe_key(key: str) -> KeyInfo:
    """As describe_key() in pinbench/snapshot.hpp."""
    direction = "usage"
    if key.endswith(".free"):
        direction = "available"
    elif key.endswith(".total") or key.endswith(".budget"):
        direction = "fixed"
    budget = "shared" if key.startswith("dxgi.nonlocal.") or key.endswith(".shared") else "dedicated"
    return KeyInfo(direction, budget)


def split_metric(name: str) -> tuple[str, str] | None:
    """ "cost.after_first_use.nvml.0.used" -> ("cost.after_first_use", "nvml.0.used");
    None for metrics that are not about a probe key (time.*)."""
    for prefix in _TARGETS:
        if name.startswith(prefix):
            return prefix[:-1], name[len(prefix) :]
    return None


def rebuildable(metric: str) -> bool:
    """Whether the metric's per-repeat samples can be rebuilt from snapshots and timings
    (cost.*, residual.*, time.*_ms). The scenario kinds' own metrics (capacity.*, churn.*, ...;
    docs/kinds.md) are computed by the harness from snapshots and repeats[].data in ways this
    module does not mirror: only their summaries are used (stats.compare_summaries)."""
    return (metric.startswith("time.") and metric.endswith("_ms")) or split_metric(metric) is not None


def reading(snapshot: dict[str, Any], key: str) -> int | None:
    value = snapshot.get("readings", {}).get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def cost_between(key: str, before: int, after: int) -> int | None:
    d = describe_key(key).direction
    if d == "usage":
        return after - before
    if d == "available":
        return before - after
    return None


def ok_repeats(run: dict[str, Any]) -> list[dict[str, Any]]:
    return [r for r in run.get("repeats", []) if r.get("status") == "ok"]


def metric_samples(run: dict[str, Any], metric: str) -> list[float] | None:
    """The metric's value in each ok repeat, in repeat order; None when it cannot be rebuilt."""
    repeats = ok_repeats(run)
    if not repeats:
        return None
    if metric.startswith("time.") and metric.endswith("_ms"):
        name = metric[len("time.") : -len("_ms")]
        values = [r.get("timings_ms", {}).get(name) for r in repeats]
        return [float(v) for v in values] if all(isinstance(v, (int, float)) for v in values) else None
    parts = split_metric(metric)
    if parts is None:
        return None
    label = _TARGETS[parts[0] + "."]
    key = parts[1]
    out: list[float] = []
    for r in repeats:
        snaps: dict[str, dict[str, Any]] = {}
        for s in r.get("snapshots", []):
            snaps.setdefault(s.get("label"), s)  # the first of a label, as the C++ side
        if BASELINE_LABEL not in snaps or label not in snaps:
            return None
        before, after = reading(snaps[BASELINE_LABEL], key), reading(snaps[label], key)
        if before is None or after is None:
            return None
        cost = cost_between(key, before, after)
        if cost is None:
            return None
        out.append(float(cost))
    return out


def run_samples(run: dict[str, Any]) -> dict[str, list[float]]:
    """Samples of every metric the run's `metrics` lists and that can be rebuilt."""
    out = {}
    for name in run.get("metrics", {}):
        s = metric_samples(run, name)
        if s is not None:
            out[name] = s
    return out


def summary_matches(metric: dict[str, Any], samples: list[float]) -> bool:
    """Whether rebuilt samples agree with the file's own summary of the metric (n, median,
    min, max): a guard that this module still mirrors the harness."""
    if len(samples) != metric.get("n"):
        return False
    ordered = sorted(samples)
    mid = len(ordered) // 2
    median = ordered[mid] if len(ordered) % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    return all(
        math.isclose(a, float(metric.get(k, math.nan)), rel_tol=1e-9, abs_tol=1e-9)
        for a, k in ((median, "median"), (ordered[0], "min"), (ordered[-1], "max"))
    )
