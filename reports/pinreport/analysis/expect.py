"""Checks scenario `expect` blocks: claims per driver model, CONFIRMED or REFUTED on this run.

A block (results["scenario"]["scenarios"][i]["expect"]) maps a driver model to limits:
  max_overhead_ratio  every judged cost / pinned bytes stays at or below it
  min_overhead_ratio  every judged cost / pinned bytes reaches it
  max_overhead_bytes  every judged cost stays at or below it
  metrics             {METRIC: {min: V, max: V}}: the median of METRIC in every ok run of the
                      scenario under that model stays within the bounds (any kind's metric,
                      docs/kinds.md; one granule of uncertainty for bytes metrics)
"Judged cost" is what the reservation rule judges (rule.py): the held cost on each
dedicated-memory key of each pinned (non-pageable) run of that scenario whose devices all run
that driver model. One granule of uncertainty applies: a limit inside value +- granule is
AMBIGUOUS. A claim with no such run here (another driver model, every run failed) is NOT TESTED.
"""

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pinreport.analysis.disturbance import disturbed_keys, disturbed_metrics
from pinreport.analysis.rule import CONTROL_API, RULE_KINDS, exact, held_costs, is_judged_key, pinned_bytes
from pinreport.base.units import format_bytes
from pinreport.readers.environment import model_family
from pinreport.readers.results import ResultsFile
from pinreport.readers.runs import Metric

LIMITS = ("max_overhead_ratio", "min_overhead_ratio", "max_overhead_bytes")


class ClaimVerdict(StrEnum):
    CONFIRMED = "CONFIRMED"
    REFUTED = "REFUTED"
    AMBIGUOUS = "AMBIGUOUS"
    NOT_TESTED = "NOT TESTED"


@dataclass(frozen=True)
class ClaimResult:
    scenario: str
    driver_model: str
    limit: str
    value: float
    verdict: ClaimVerdict
    reason: str
    checked: int  # how many (run, key) values were compared
    unit: str = ""  # metric limits: the metric's unit

    @property
    def shown_value(self) -> str:
        return _shown(self.limit, self.value, self.unit)


def _shown(limit: str, value: float, unit: str = "") -> str:
    if unit:
        return format_bytes(value) if unit == "bytes" else f"{value:g}"
    return f"{value:g}" if limit.endswith("_ratio") else format_bytes(value)


def _run_models(devices: tuple[str, ...], gpus: int) -> set[str]:
    """The models a run's expect entries are keyed by (`devices`: each device's driver model, in
    device order): WSL2 is WDDM there (model_family)."""
    models = [model_family(m) for m in devices]
    return set(models[: max(gpus, 1)]) if models else {"unknown"}


def _observations(current: ResultsFile, scenario: str, model: str) -> list[tuple[str, str, float, float, float]]:
    """(run id, key, value bytes, pinned bytes, granule bytes) of every judged cost."""
    devices = current.environment.driver_models
    out = []
    for run in current.runs:
        plan = run.plan
        pinned = pinned_bytes(plan)
        if (
            plan.scenario != scenario
            or run.status != "ok"
            or plan.kind not in RULE_KINDS
            or plan.api == CONTROL_API
            or pinned is None
            or _run_models(devices, plan.gpu_count) != {model}
        ):
            continue
        disturbed = disturbed_keys(run)  # never judged (disturbance.py)
        for key, cost in sorted(held_costs(run).items()):
            if is_judged_key(key) and key not in disturbed:
                # the uncertainty: one granule plus the repeats' MAD, as the rule's (rule.py)
                u = float(cost.granule or 0) + cost.mad
                out.append((run.id, key, cost.median, float(pinned), u))
    return out


def _judge(
    items: list[tuple[str, Any, Any, str]], bound: Any, is_max: bool, limit_text: str, noun: str
) -> tuple[ClaimVerdict, str]:
    """(label, value, uncertainty, shown value) against one bound: REFUTED by the first value
    beyond it by more than its uncertainty, AMBIGUOUS when one is within it, else CONFIRMED."""
    refuting = None  # the first value beyond the limit
    ambiguous = []
    for label, value, u, shown in items:
        beyond = value - u > bound if is_max else value + u < bound
        within = value + u <= bound if is_max else value - u >= bound
        if beyond:
            refuting = refuting or f"{label}: {shown} {'>' if is_max else '<'} {limit_text}"
        elif not within:
            ambiguous.append(f"{label}: {shown} within one granule of {limit_text}")
    if refuting:
        return ClaimVerdict.REFUTED, refuting
    if ambiguous:
        return ClaimVerdict.AMBIGUOUS, ambiguous[0]
    return ClaimVerdict.CONFIRMED, f"all {len(items)} {noun} {'at or below' if is_max else 'at or above'} {limit_text}"


def _check(limit: str, bound: float | int, obs: list[tuple[str, str, float, float, float]]) -> tuple[ClaimVerdict, str]:
    ratio = limit.endswith("_ratio")
    items = []
    for run_id, key, cost, pinned, granule in obs:
        value, u = exact(cost), exact(granule)
        if ratio:
            value, u = value / exact(pinned), u / exact(pinned)
        shown = f"{float(value):.4g}" if ratio else format_bytes(float(value))
        items.append((f"{run_id} {key}", value, u, shown))
    return _judge(items, exact(bound), limit.startswith("max_"), _shown(limit, bound), "values")


def _metric_claims(
    current: ResultsFile, scenario: str, model: str, metrics: tuple[tuple[str, float | None, float | None], ...]
) -> list[ClaimResult]:
    """Bounds on named metrics: each ok run of the scenario under `model` that has the metric."""
    devices = current.environment.driver_models
    runs = [
        r
        for r in current.runs
        if r.plan.scenario == scenario and r.status == "ok" and _run_models(devices, r.plan.gpu_count) == {model}
    ]
    out = []
    for name, low, high in metrics:
        values = [(r.id, r.metrics[name]) for r in runs if name in r.metrics and name not in disturbed_metrics(r)]
        unit = values[0][1].unit if values else ""
        for side, bound in (("min", low), ("max", high)):
            if bound is None:
                continue
            limit = f"{name} {side}"
            if not values:
                verdict, reason = ClaimVerdict.NOT_TESTED, f"no ok run with {name} measured under {model} here"
            else:
                verdict, reason = _check_metric(side, bound, unit, values)
            out.append(ClaimResult(scenario, model, limit, bound, verdict, reason, len(values), unit or "bytes"))
    return out


def _check_metric(side: str, bound: float, unit: str, values: list[tuple[str, Metric]]) -> tuple[ClaimVerdict, str]:
    unit = unit or "bytes"
    items = []
    for run_id, m in values:
        value = float(m.median)
        u = float(m.granule or 0) if unit == "bytes" else 0.0
        items.append((run_id, value, u, _shown("", value, unit)))
    return _judge(items, bound, side == "max", _shown("", bound, unit), "runs")


def check_expectations(current: ResultsFile) -> list[ClaimResult]:
    """Every claim of every scenario's expect block, judged on this results file."""
    out = []
    for s in current.scenarios:
        for e in s.expectations:
            model, limits = e.driver_model, dict(e.limits)
            obs = _observations(current, s.name, model)
            for limit in LIMITS:
                if limit not in limits:
                    continue
                bound = limits[limit]
                if not obs:
                    verdict, reason = ClaimVerdict.NOT_TESTED, f"no pinned run measured under {model} here"
                else:
                    verdict, reason = _check(limit, bound, obs)
                out.append(ClaimResult(s.name, model, limit, bound, verdict, reason, len(obs)))
            out.extend(_metric_claims(current, s.name, model, e.metrics))
    return out
