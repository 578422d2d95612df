"""The reservation rule: "reserve 10-20% of the pinned bytes as extra VRAM", judged per run.

For each run of a rule kind, each probe key's cost while the buffers are held (the larger
median of cost.after_alloc and cost.after_first_use) is divided by the pinned bytes
(plan.size_bytes x plan.count): ratio = cost / pinned, uncertainty = (one granule + the MAD of
the repeats) / pinned: the quantisation step plus how far the repeats spread (a MAD of 82 MiB
beside a granule of 2 MiB is not "+- 0.0000"). A probe key that was disturbed by another
process (disturbance.py: marked by pinbench, or a cost below zero by more than one granule) is
NOT JUDGED with the evidence, never OVER-RESERVED or "nothing used".

Only dedicated-memory keys are judged (cuda.free, nvml.<i>.used, dxgi.local.usage,
pdh.<x>.dedicated), one device at a time: the reserve is VRAM on each GPU. Shared-memory keys
(dxgi.nonlocal.usage, pdh.<x>.shared: another budget) and the sum of nvml.<i>.used over the
devices (N GPUs pay N times) are reported beside, never judged. Pageable runs are the control
and are not judged.

Capacity runs (docs/kinds.md) are the most direct evidence: capacity.loss is how much the
largest cudaMalloc block on device 0 shrank once P bytes were pinned, i.e. dedicated memory the
application can no longer have. Their rule result has key "capacity.loss": ratio = median loss /
P (plan.size_bytes), uncertainty = (one bisection resolution (params.resolution, default 2 MiB)
+ the MAD of the repeats) / P: both bisections err by less than one resolution in the same
direction, so their difference by less than one. Probe costs a capacity run may carry are
shown beside, not judged there (the filler moves them). Against the band [lower, upper], with
the interval ratio +- uncertainty:
  VIOLATION      the whole interval is above upper: that reserve is not enough
  OVER-RESERVED  the whole interval is below lower; factor = lower / ratio
  OK             the whole interval is inside the band (the edges count as inside)
  AMBIGUOUS      the interval straddles an edge
"""

import math
import re
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction

from pinreport.analysis.disturbance import disturbed_metrics, keys_of
from pinreport.base import catalog
from pinreport.base.errors import UsageError
from pinreport.base.probe_keys import CAPACITY_LOSS, describe_key, is_dedicated_key, split_metric
from pinreport.base.units import format_bytes
from pinreport.readers.runs import Plan, Run

# The kinds whose held costs the rule judges, and the stages it reads them at (catalog.py).
RULE_KINDS = catalog.RULE_KINDS
HELD_STAGES = catalog.HELD_STAGES
CONTROL_API = "pageable"
_NVML_USED = re.compile(r"^nvml\.([0-9]+)\.used$")
NVML_SUM_KEY = "nvml.*.used (sum over devices)"
# A capacity run's bisection step where its plan gives none: the kind's parameter table's.
DEFAULT_RESOLUTION: int = catalog.kind_entry("capacity").param("resolution").fallback


class RuleVerdict(StrEnum):
    VIOLATION = "VIOLATION"
    OK = "OK"
    OVER_RESERVED = "OVER-RESERVED"
    AMBIGUOUS = "AMBIGUOUS"
    NOT_JUDGED = "NOT JUDGED"


def exact(x: int | float | str | Fraction) -> Fraction:
    """Exact value for edge comparisons: a float counts as the decimal it prints as (0.2 is 1/5),
    so a cost of exactly 20% of the pinned bytes sits exactly on a 0.20 edge."""
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"not a finite number: {x}")
        return Fraction(repr(x))
    return Fraction(x)


@dataclass(frozen=True)
class Band:
    lower: Fraction = field(default=Fraction(1, 10))
    upper: Fraction = field(default=Fraction(1, 5))

    @staticmethod
    def parse(text: str) -> "Band":
        try:
            lo, hi = (Fraction(x.strip()) for x in text.split(","))
        except ValueError:
            raise UsageError(f"--band wants LOWER,UPPER such as 0.10,0.20; got {text!r}") from None
        if not (0 <= lo <= hi):
            raise UsageError(f"--band needs 0 <= LOWER <= UPPER; got {text!r}")
        return Band(lo, hi)

    def __str__(self) -> str:
        return f"{float(self.lower):.4g}-{float(self.upper):.4g}"


def is_judged_key(key: str) -> bool:
    return is_dedicated_key(key)


def is_shared_key(key: str) -> bool:
    info = describe_key(key)
    return info.budget == "shared" and info.direction != "fixed"


def judge_ratio(ratio: Fraction | float, uncertainty: Fraction | float, band: Band) -> tuple[RuleVerdict, float | None]:
    """Pure: the verdict of one ratio and the over-reservation factor (OVER-RESERVED only).
    Computed exactly (see exact()), so the band's edges behave as documented."""
    ratio, uncertainty = exact(ratio), exact(uncertainty)
    low, high = ratio - uncertainty, ratio + uncertainty
    if low > band.upper:
        return RuleVerdict.VIOLATION, None
    if high < band.lower:
        return RuleVerdict.OVER_RESERVED, (float(band.lower / ratio) if ratio > 0 else math.inf)
    if low >= band.lower and high <= band.upper:
        return RuleVerdict.OK, None
    return RuleVerdict.AMBIGUOUS, None


def pinned_bytes(plan: Plan) -> int | None:
    """The bytes a run pinned at once (size x count); None where its plan does not say (never 0:
    the rule divides by it)."""
    return plan.pinned


@dataclass(frozen=True)
class HeldCost:
    stage: str  # "cost.after_alloc" or "cost.after_first_use"
    median: float
    granule: int | None
    mad: float = 0.0  # the spread of the repeats (median absolute deviation), bytes


def held_costs(run: Run) -> dict[str, HeldCost]:
    """Per probe key, the held stage with the larger median (the worst moment while holding)."""
    out: dict[str, HeldCost] = {}
    for name in run.metrics:
        parts = split_metric(name)
        if parts is None or parts[0] not in HELD_STAGES:
            continue
        m = run.metrics[name]
        if m.unit != "bytes":
            continue
        stage, key = parts
        if m.median is None:
            continue
        cost = HeldCost(stage, m.median, m.granule, m.mad)
        if key not in out or cost.median > out[key].median:
            out[key] = cost
    return out


@dataclass(frozen=True)
class RuleResult:
    run_id: str
    scenario: str
    api: str
    key: str
    stage: str
    cost: float
    pinned: int
    ratio: float
    uncertainty: float | None  # None: granule unknown
    verdict: RuleVerdict
    factor: float | None
    reason: str

    @property
    def judged(self) -> bool:
        return self.verdict != RuleVerdict.NOT_JUDGED


def _result(
    run: Run, key: str, cost: HeldCost, pinned: int, band: Band | None, why: str, granule_count: int = 1
) -> RuleResult:
    plan = run.plan
    ratio = exact(cost.median) / pinned
    spread = exact(cost.mad)
    u = (granule_count * cost.granule + spread) / pinned if cost.granule else None
    if band is None:
        verdict, factor, reason = RuleVerdict.NOT_JUDGED, None, why
    else:
        verdict, factor = judge_ratio(ratio, u if u is not None else spread / pinned, band)
        reason = f"band {band}" + ("" if u is not None else "; granule unknown, uncertainty is the MAD alone")
        if spread:
            reason += f"; uncertainty includes the repeats' MAD of {format_bytes(float(spread))}"
        if factor is not None:
            reason += f"; reserve is {factor:.3g}x what was used" if math.isfinite(factor) else "; nothing used"
    return RuleResult(
        run.id,
        plan.scenario,
        plan.api or "",
        key,
        cost.stage,
        cost.median,
        pinned,
        float(ratio),
        float(u) if u is not None else None,
        verdict,
        factor,
        reason,
    )


def capacity_resolution(plan: Plan) -> int:
    value = plan.params.integer("resolution") if "resolution" in plan.params else DEFAULT_RESOLUTION
    return value if value is not None and value > 0 else DEFAULT_RESOLUTION


def capacity_result(run: Run, band: Band | None, disturbed: dict[str, str] | None = None) -> RuleResult | None:
    """The rule on a capacity run's capacity.loss (module docstring); None when not measured.
    `disturbed`: the run's disturbed_metrics, where the caller has them already."""
    if run.plan.kind != "capacity" or CAPACITY_LOSS not in run.metrics:
        return None
    m = run.metrics[CAPACITY_LOSS]
    pinned = run.plan.size
    if m.unit != "bytes" or m.median is None or pinned is None or pinned <= 0:
        return None
    step = capacity_resolution(run.plan)
    if m.granule is not None and m.granule > step:
        step = m.granule
    control = run.plan.api == CONTROL_API
    cost = HeldCost(CAPACITY_LOSS, m.median, step, m.mad)
    why = (disturbed_metrics(run) if disturbed is None else disturbed).get(CAPACITY_LOSS)
    if why is not None:
        return _result(run, CAPACITY_LOSS, cost, pinned, None, f"disturbed: {why}")
    r = _result(run, CAPACITY_LOSS, cost, pinned, None if control else band, "pageable: the control, not judged")
    what = f"largest cudaMalloc block shrank by the loss; uncertainty one bisection step ({format_bytes(step)})"
    return replace(r, reason=f"{what}; {r.reason}")


def rule_results(run: Run, band: Band, disturbed: dict[str, str] | None = None) -> list[RuleResult]:
    """The rule's results for one run (empty when the rule does not apply to it). `disturbed`:
    the run's disturbed_metrics, where the caller has them already (compare)."""
    pinned = pinned_bytes(run.plan)
    if run.status != "ok" or run.plan.kind not in RULE_KINDS or pinned is None:
        return []
    control = run.plan.api == CONTROL_API
    capacity = run.plan.kind == "capacity"
    out = []
    bad = disturbed_metrics(run) if disturbed is None else disturbed
    loss = capacity_result(run, band, bad)
    if loss is not None:
        out.append(loss)
    costs = held_costs(run)
    disturbed = keys_of(bad)
    for key in sorted(costs):
        if key in disturbed:
            out.append(_result(run, key, costs[key], pinned, None, f"disturbed: {disturbed[key]}"))
        elif is_judged_key(key):
            why = "capacity run: judged on capacity.loss" if capacity else "pageable: the control, not judged"
            out.append(_result(run, key, costs[key], pinned, None if control or capacity else band, why))
        elif is_shared_key(key):
            out.append(_result(run, key, costs[key], pinned, None, "shared memory: another budget, not judged"))
    nvml = [costs[k] for k in costs if _NVML_USED.match(k) and k not in disturbed]
    if len(nvml) > 1:
        granules = [c.granule for c in nvml]
        total = HeldCost(
            "cost.held", sum(c.median for c in nvml), max(granules) if all(g is not None for g in granules) else None
        )
        out.append(
            _result(
                run,
                NVML_SUM_KEY,
                total,
                pinned,
                None,
                f"sum over {len(nvml)} devices; the rule is per device",
                granule_count=len(nvml),
            )
        )
    return out
