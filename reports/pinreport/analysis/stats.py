"""Pure comparisons of one metric's samples: a baseline against the current run.

Byte metrics (probe readings are quantised by the probe's granule, so a rank test on them is
dominated by ties) use the separation rule; time and bandwidth metrics use a two-sided
Mann-Whitney U test. Both need enough samples to be decisive (below), else AMBIGUOUS.

Enough samples. With nb baseline samples (every stored night's, pooled) and nc current ones,
the most extreme outcome either rule can see, every current sample beyond every baseline one,
happens by chance with probability 2 / C(nb + nc, nc) when nothing changed (samples from one
distribution, in random order). A comparison is decisive only when that is below alpha, and
each side has at least `min_repeats` samples (default 3, the least a run's stopping rule and
outlier check measure): 7 against 7 gives 0.0006, 3 against 9 or more (three nights stopped at
3) 0.009 and less, 3 against 7 0.017, not decisive. Before, each side needed 7, which left every
3-repeat run AMBIGUOUS however many nights the store held. The A/A check over the five
committed nights (reports/README.md, "Enough samples") gives no false alarm under it, and catches
every injected one-granule byte shift.

Byte rule. With g the probe's granule (the larger of the two sides'; 1 byte when unknown) and
delta = median(current) - median(baseline), the metric changed when all three hold:
  1. |delta| >= g                              (at least one quantisation step)
  2. |delta| >= floor * |median(baseline)|     (the relative floor, default 0: see DEFAULT_FLOOR;
                                               a fall needs floor / (1 + floor), see floor_distance)
  3. the samples are separated: every current sample lies beyond the baseline's range on the
     side of the change (min(current) > max(baseline) for a rise, max(current) < min(baseline)
     for a fall).
1 and 2 without 3 is AMBIGUOUS (the medians moved but the samples overlap); otherwise SAME.

Time rule. The metric changed when the Mann-Whitney U p-value is below alpha (default 0.01)
and the median moved past the relative floor, where for times the floor is at least the time
floor (default 100%, measured: see DEFAULT_TIME_FLOOR); otherwise SAME. The floor is a factor
either way (floor_distance): with 100%, a doubling or a halving.

Night rule (time-like metrics: time.*, bandwidth.*, and the ms and ratio metrics of the kinds).
Repeats within one night do not describe how a time moves between nights (machine starts,
clocks, page-cache state): the committed smoke and quick runs, two starts of one H200, differ by
+49% in one median with p = 0.0175. So the baseline is taken night by night: with m_1..m_k the
medians of the k stored nights (stored files) that measured the metric, c = median(m_i) and the
night-to-night spread R = max(m_i) - min(m_i), the metric changed when
  1. the rank test rejects (Mann-Whitney p < alpha, current repeats against the pooled nights'), and
  2. |median(current) - c| > max(floor_distance(c), NIGHT_SPREAD_FACTOR * R).
So it detects a shift larger than twice the spread seen between quiet nights and larger than the
time floor. With fewer than `min_nights` nights (default DEFAULT_MIN_NIGHTS) the spread is not
known: AMBIGUOUS, "too few nights".

Every rule reads the per-repeat samples the results files carry (results schema 4), the
scenario kinds' metrics included: no metric is judged on its summary.

A change is a REGRESSION when it goes the worse way (`higher_is_worse`), else an IMPROVEMENT.
"""

import math
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from pinreport.base.units import format_bytes, format_delta, format_value

DEFAULT_ALPHA = 0.01
DEFAULT_FLOOR = 0.0  # bytes: one granule with every sample separated is a change (reports/README.md)
# Time metrics also need a floor above the spread between machine starts, which moves times and
# never bytes: on real H200 nights of one driver, time medians moved by up to 1.83x between
# quiet starts (false alarms at a 50% floor, none at 75% or 100%). So a time must double or
# halve to be a change; the nights and numbers are in reports/README.md ("A/A: measured") and
# results/h200-aa-fresh/NOTES.md.
DEFAULT_TIME_FLOOR = 1.0
# Samples each side needs at least (module docstring, "Enough samples"); alpha decides the rest.
DEFAULT_MIN_REPEATS = 3
# The night rule (module docstring): nights needed to know the night-to-night spread (two, so
# that three nights of one release, each from a fresh machine start, judge each other), and how
# many spreads a change must exceed. A shift of 3 spreads is detected (when over the time floor);
# with only two nights the spread is one difference, so the time floor still guards the rest.
DEFAULT_MIN_NIGHTS = 2
NIGHT_SPREAD_FACTOR = 2.0


class Verdict(StrEnum):
    REGRESSION = "REGRESSION"
    IMPROVEMENT = "IMPROVEMENT"
    SAME = "SAME"
    AMBIGUOUS = "AMBIGUOUS"
    NO_BASELINE = "NO-BASELINE"
    NOT_JUDGED = "NOT JUDGED"  # the probe was disturbed by another process (disturbance.py)


@dataclass(frozen=True)
class Comparison:
    verdict: Verdict
    reason: str
    baseline_median: float | None = None
    current_median: float | None = None
    n_baseline: int = 0
    n_current: int = 0
    p_value: float | None = None
    nights: int = 0  # night rule: stored nights in the baseline (0: rule not used)
    night_spread: float | None = None  # night rule: max - min of the nights' medians

    @property
    def delta(self) -> float | None:
        if self.baseline_median is None or self.current_median is None:
            return None
        return self.current_median - self.baseline_median


def median(values: Sequence[float]) -> float:
    """As the C++ summary: for even n the mean of the two middle values."""
    if len(values) == 0:
        raise ValueError("median of no values")
    return float(np.median(np.asarray(values, dtype=float)))


def _direction(delta: float, higher_is_worse: bool) -> Verdict:
    return Verdict.REGRESSION if (delta > 0) == higher_is_worse else Verdict.IMPROVEMENT


def extreme_chance(n_baseline: int, n_current: int) -> float:
    """The chance, when nothing changed, that every current sample lies beyond every baseline
    sample on one side or the other: the least p-value any rank comparison of these sizes can
    give (module docstring, "Enough samples")."""
    return 2 / math.comb(n_baseline + n_current, n_current)


def _too_few(baseline: Sequence[float], current: Sequence[float], min_repeats: int, alpha: float) -> Comparison | None:
    if len(baseline) == 0:
        return Comparison(Verdict.NO_BASELINE, "no baseline samples", n_current=len(current))
    if len(baseline) < min_repeats or len(current) < min_repeats:
        why = f"need {min_repeats} each"
    elif (chance := extreme_chance(len(baseline), len(current))) >= alpha:
        why = f"even samples wholly apart would be seen by chance with p={chance:.2g}, not below alpha {alpha:g}"
    else:
        return None
    return Comparison(
        Verdict.AMBIGUOUS,
        f"too few repeats: baseline {len(baseline)}, current {len(current)}, {why}",
        median(baseline),
        median(current) if current else None,
        len(baseline),
        len(current),
    )


def floor_distance(base: float, floor: float, rise: bool) -> float:
    """How far a median must move from `base` to pass the relative floor. The floor is a factor
    either way: a rise to (1 + floor) x base or a fall to base / (1 + floor), so with the time
    floor's 100% a doubling or a halving; a metric that cannot go below 0 (a time, a bandwidth, a
    ratio) can still be seen falling."""
    return (floor if rise else floor / (1 + floor)) * abs(base)


def _floor_text(floor: float, rise: bool) -> str:
    return f"{floor:.0%} floor" if rise or floor == 0 else f"{floor:.0%} floor (a fall to 1/{1 + floor:g})"


def _floor_met(delta: float, base: float, floor: float) -> bool:
    return abs(delta) >= floor_distance(base, floor, delta > 0)


def compare_bytes(
    baseline: Sequence[float],
    current: Sequence[float],
    granule: int | None,
    *,
    floor: float = DEFAULT_FLOOR,
    alpha: float = DEFAULT_ALPHA,
    min_repeats: int = DEFAULT_MIN_REPEATS,
    higher_is_worse: bool = True,
) -> Comparison:
    """The byte rule (module docstring)."""
    early = _too_few(baseline, current, min_repeats, alpha)
    if early is not None:
        return early
    g = granule if granule is not None and granule > 0 else 1
    mb, mc = median(baseline), median(current)
    delta = mc - mb
    common = dict(baseline_median=mb, current_median=mc, n_baseline=len(baseline), n_current=len(current))
    step = f"granule {format_bytes(g)}" if granule else "granule unknown (1 B used)"
    if abs(delta) < g:
        return Comparison(Verdict.SAME, f"median moved {format_bytes(delta)}, less than one {step}", **common)
    if not _floor_met(delta, mb, floor):
        return Comparison(
            Verdict.SAME, f"median moved {format_bytes(delta)}, under the {_floor_text(floor, delta > 0)}", **common
        )
    separated = min(current) > max(baseline) if delta > 0 else max(current) < min(baseline)
    if not separated:
        return Comparison(
            Verdict.AMBIGUOUS,
            f"median moved {format_bytes(delta)} ({step}) but the samples overlap the baseline's range",
            **common,
        )
    return Comparison(
        _direction(delta, higher_is_worse),
        f"median moved {format_bytes(delta)} ({step}); every sample beyond the baseline's range",
        **common,
    )


def load_libraries() -> None:
    """Imports scipy.stats now: about a second, paid once, where the caller has the time (while
    worker processes check the store's files: store.reading). Each use below imports it where it
    is needed, so a command that never tests a sample (summary, reserve) never pays for it."""
    import scipy.stats  # noqa: F401


def mann_whitney_p(baseline: Sequence[float], current: Sequence[float]) -> float:
    """Two-sided Mann-Whitney U p-value; 1.0 when every sample is equal (no evidence at all)."""
    from scipy import stats as scipy_stats  # load_libraries()

    if len(set(baseline) | set(current)) == 1:
        return 1.0
    p = float(scipy_stats.mannwhitneyu(current, baseline, alternative="two-sided").pvalue)
    return 1.0 if math.isnan(p) else p


def compare_times(
    baseline: Sequence[float],
    current: Sequence[float],
    *,
    alpha: float = DEFAULT_ALPHA,
    floor: float = DEFAULT_FLOOR,
    min_repeats: int = DEFAULT_MIN_REPEATS,
    higher_is_worse: bool = True,
    unit: str = "ms",
) -> Comparison:
    """The time rule (module docstring); also for bandwidths with higher_is_worse=False."""
    early = _too_few(baseline, current, min_repeats, alpha)
    if early is not None:
        return early
    mb, mc = median(baseline), median(current)
    delta = mc - mb
    p = mann_whitney_p(baseline, current)
    common = dict(baseline_median=mb, current_median=mc, n_baseline=len(baseline), n_current=len(current), p_value=p)
    moved = f"median moved {delta:+.4g} {unit}"
    if p >= alpha:
        return Comparison(Verdict.SAME, f"{moved}; Mann-Whitney p={p:.3g} >= alpha {alpha:g}", **common)
    if not _floor_met(delta, mb, floor):
        return Comparison(Verdict.SAME, f"{moved}; p={p:.3g} but under the {_floor_text(floor, delta > 0)}", **common)
    return Comparison(
        _direction(delta, higher_is_worse), f"{moved}; Mann-Whitney p={p:.3g} < alpha {alpha:g}", **common
    )


@dataclass(frozen=True)
class NightSpread:
    """The nights' medians of one metric: their median (the center) and their range."""

    nights: int
    center: float
    low: float
    high: float

    @property
    def spread(self) -> float:
        return self.high - self.low

    @staticmethod
    def of(medians: Sequence[float]) -> "NightSpread":
        if not medians:
            raise ValueError("night spread of no nights")
        return NightSpread(len(medians), median(medians), min(medians), max(medians))

    def margin(self, floor: float, rise: bool) -> float:
        """How far the current median must lie from the center, on the side it moved to, to
        count as a change."""
        return max(floor_distance(self.center, floor, rise), NIGHT_SPREAD_FACTOR * self.spread)

    def describe(self, unit: str) -> str:
        return (
            f"{self.nights} nights, medians {format_value(self.low, unit)} to {format_value(self.high, unit)} "
            f"(spread {format_value(self.spread, unit)})"
        )


TOO_FEW_NIGHTS = "too few nights"  # how an AMBIGUOUS reason starts when only nights are missing


def _too_few_nights(ns: NightSpread, min_nights: int, unit: str) -> str | None:
    if ns.nights >= min_nights:
        return None
    return (
        f"{TOO_FEW_NIGHTS}: {ns.nights} stored night(s) measured it, {min_nights} needed to know the "
        f"night-to-night spread"
    )


def compare_times_nights(
    nights: Sequence[Sequence[float]],
    current: Sequence[float],
    *,
    alpha: float = DEFAULT_ALPHA,
    floor: float = DEFAULT_FLOOR,
    min_repeats: int = DEFAULT_MIN_REPEATS,
    min_nights: int = DEFAULT_MIN_NIGHTS,
    higher_is_worse: bool = True,
    unit: str = "ms",
) -> Comparison:
    """The night rule (module docstring): `nights` holds each stored night's samples."""
    nights = [n for n in nights if len(n)]
    pooled = [x for n in nights for x in n]
    early = _too_few(pooled, current, min_repeats, alpha)
    if early is not None:
        return early
    ns = NightSpread.of([median(n) for n in nights])
    mc = median(current)
    p = mann_whitney_p(pooled, current)
    delta = mc - ns.center
    common = dict(
        baseline_median=ns.center,
        current_median=mc,
        n_baseline=len(pooled),
        n_current=len(current),
        p_value=p,
        nights=ns.nights,
        night_spread=ns.spread,
    )
    moved = f"median moved {format_delta(delta, unit)} from the nights' center"
    few = _too_few_nights(ns, min_nights, unit)
    if few is not None:
        return Comparison(Verdict.AMBIGUOUS, f"{few} ({moved}, p={p:.3g})", **common)
    margin = ns.margin(floor, delta > 0)
    limit = f"max({_floor_text(floor, delta > 0)}, {NIGHT_SPREAD_FACTOR:g} x spread) = {format_value(margin, unit)}"
    if p >= alpha:
        return Comparison(
            Verdict.SAME, f"{moved}; Mann-Whitney p={p:.3g} >= alpha {alpha:g}; {ns.describe(unit)}", **common
        )
    if abs(delta) <= margin:
        return Comparison(Verdict.SAME, f"{moved}, within {limit}; {ns.describe(unit)}; p={p:.3g}", **common)
    return Comparison(
        _direction(delta, higher_is_worse),
        f"{moved}, beyond {limit}; {ns.describe(unit)}; Mann-Whitney p={p:.3g} < alpha {alpha:g}",
        **common,
    )
