"""Max pinnable against free VRAM (a claim beyond the brief): does the largest pinnable host buffer track the
device memory left free?

The evidence is the `sweep` kind's max_pinnable runs that carry the `free_target` axis
(docs/kinds.md): the child fills device 0 until `free_target` bytes are free ("all": no fill),
then bisects the largest size the api pins. One point per ok run, grouped by api:
  x = free VRAM before the search: median of `sweep.free_before`, else of the ok repeats'
      `data.free_before` (cudaMemGetInfo on device 0, after filling);
  y = the largest size that pinned: median of `sweep.max_pinnable`, else of `data.max_pinnable`;
  capped = every ok repeat pinned `cap_effective` at once (`data.capped`; else `sweep.capped`,
      whose minimum over the repeats is 1), so y is only a lower bound; so is a point where
      some ok repeat's bisection timed out (`data.timed_out`: the bracket's lower end is kept).
Runs without `free_target` (files from before the axis), runs that are not ok, runs with a
disturbed metric (disturbance.py) and runs with `enforce_host_limit: on` give no point: the
last are the failure path on purpose (the OS refuses more than `host_limit`), bounded by the
host limit and not by VRAM; their stop errors are named in the evidence beside the points.

The slope (bytes of pinnable per byte of free VRAM) is the least-squares fit over the UNCAPPED
points (neither capped nor timed out); it needs at least 2 distinct x. Its bound is the range
[min, max] of the pairwise slopes (y_j - y_i) / (x_j - x_i) over the uncapped pairs with
distinct x: with a handful of points a fit's standard error says little, while the pairwise
slopes show every slope the data allows between two of its points. A capped point never enters
the fit or the bound (its y is a floor).

The claim "largest pinnable size tracks free VRAM", per api:
  REFUTED     at the point with the least free VRAM the pinned bytes (a lower bound when capped)
              are at least REFUTE_FACTOR x free + REFUTE_INTERCEPT (a slope-1 relation with the
              ~1 GiB intercept of the public table cannot reach that), or at least 2 uncapped
              points give a bound within FLAT (the size does not follow free VRAM);
  CONFIRMED   at least 2 uncapped points with distinct x and the whole bound within NEAR_ONE;
  AMBIGUOUS (inconclusive) otherwise, with the reason;
  NOT_TESTED  no point for that api.
Per file (one platform and driver model): REFUTED when some api refutes, else CONFIRMED when
some api confirms (the others named in the evidence), else AMBIGUOUS; NOT_TESTED when the
file has no point at all.

The "Windows cap" is reported beside, never judged: max pinnable over the host's physical RAM
(`sweep.max_pinnable_over_host_ram`, else max_pinnable / `data.host_ram_total`) at the point
with the MOST free VRAM, "at least" when that point is capped.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pinreport.analysis import kind_results
from pinreport.analysis.disturbance import disturbed_metrics
from pinreport.analysis.expect import ClaimVerdict
from pinreport.analysis.stats import median
from pinreport.base.units import as_number, format_bytes
from pinreport.readers.environment import Environment
from pinreport.readers.runs import Params, Repeat, Run

GiB = 1024**3
MODE = "max_pinnable"
FREE_TARGET = "free_target"

NEAR_ONE = (0.5, 1.5)  # CONFIRMED: the whole pairwise-slope bound inside
FLAT = (-0.25, 0.25)  # REFUTED: the whole bound inside (the size does not follow free VRAM)
REFUTE_FACTOR = 2.0  # REFUTED: pinned >= REFUTE_FACTOR x free + REFUTE_INTERCEPT at the least free
REFUTE_INTERCEPT = 1 * GiB


# The claim verdicts of the expect blocks (one vocabulary): AMBIGUOUS is this claim's "inconclusive".
Outcome = ClaimVerdict


@dataclass(frozen=True)
class Point:
    """One max_pinnable run with free_target: where it searched and what it found."""

    run_id: str
    api: str
    free_target: int | str  # bytes, or "all"
    free_before: float  # x: bytes of free VRAM before the search (median over the ok repeats)
    max_pinnable: float  # y: bytes (median); a lower bound when capped or timed out
    capped: bool  # every ok repeat pinned its cap at once
    over_host_ram: float | None  # max pinnable / the host's physical RAM (median), None if unknown
    stopped_by: tuple[str, ...] = ()  # the distinct stop errors of the ok repeats
    small_after_failure: tuple[bool, ...] = ()  # per ok repeat with a failure: did the small pin succeed
    timed_out: bool = False  # some ok repeat's bisection ran out of time_limit_s
    filler_broken: int = 0  # ok repeats whose device filler was not intact afterwards

    @property
    def lower_bound(self) -> bool:
        """y is only a lower bound: never fitted."""
        return self.capped or self.timed_out

    def describe(self) -> str:
        """ "free 1.79 GiB -> 2.75 GiB", "free 7.79 GiB -> at least 8.00 GiB (capped)"."""
        pinned = format_bytes(self.max_pinnable)
        why = [w for w, on in (("capped", self.capped), ("timed out", self.timed_out)) if on]
        if why:
            pinned = f"at least {pinned} ({', '.join(why)})"
        text = f"free {format_bytes(self.free_before)} -> {pinned}"
        if self.filler_broken:
            text += f" [filler not intact in {self.filler_broken} repeat(s)]"
        return text


@dataclass(frozen=True)
class SlopeFit:
    """Least squares over the uncapped points (module docstring); slope and intercept None
    (with `problem`) when fewer than 2 distinct x."""

    uncapped: int  # uncapped points (all of them enter the fit)
    slope: float | None = None  # bytes pinnable per byte of free VRAM
    intercept: float | None = None  # bytes
    bound: tuple[float, float] | None = None  # [min, max] of the pairwise slopes
    problem: str = ""

    def describe(self) -> str:
        if self.slope is None or self.bound is None:
            return self.problem
        lo, hi = self.bound
        return (
            f"slope {self.slope:.3g} over {self.uncapped} uncapped points "
            f"(pairwise {lo:.3g} to {hi:.3g}), intercept {format_bytes(self.intercept or 0.0)}"
        )


@dataclass(frozen=True)
class Judgement:
    outcome: Outcome
    evidence: str  # names the points, the fit and the stop errors; the reason first when AMBIGUOUS


@dataclass(frozen=True)
class WindowsCap:
    """Max pinnable over host RAM at the point with the most free VRAM (never judged)."""

    api: str
    ratio: float
    at_least: bool  # the point is a lower bound (capped or timed out): the real ratio may be higher
    point: Point

    def describe(self) -> str:
        bound = "at least " if self.at_least else ""
        return (
            f"{self.api}: {bound}{self.ratio:.3g} of host RAM at the most free VRAM "
            f"({format_bytes(self.point.free_before)} free)"
        )


# --- points -------------------------------------------------------------------------------------


def is_pinnable_run(run: Run) -> bool:
    """A sweep run of mode max_pinnable with the free_target axis (any status)."""
    plan = run.plan
    return plan.kind == "sweep" and plan.params.get("mode") == MODE and FREE_TARGET in plan.params


def is_failure_path(run: Run) -> bool:
    """A max_pinnable run whose host limit the OS enforces: it fails above host_limit on purpose."""
    return run.plan.params.get("enforce_host_limit") == "on"


def _from_data(repeats: Sequence[Repeat], name: str) -> float | None:
    values = [v for v in (r.data.number(name) for r in repeats) if v is not None]
    return median(values) if values else None


def _capped(run: Run, repeats: Sequence[Repeat]) -> bool | None:
    flags = [r.data.flag("capped") for r in repeats]
    if repeats and all(f is not None for f in flags):
        return all(flags)
    m = run.metrics.get(kind_results.CAPPED)
    low = m.low if m is not None else None
    return None if low is None else low >= 1.0


def run_point(run: Run) -> Point | None:
    """The point of one ok, undisturbed max_pinnable run with free_target; None otherwise, or
    when its free VRAM, its max pinnable or whether it was capped is not recorded."""
    if not is_pinnable_run(run) or is_failure_path(run) or run.status != "ok" or disturbed_metrics(run):
        return None
    repeats = run.ok_repeats
    x = kind_results.median_of(run, kind_results.FREE_BEFORE)
    x = x if x is not None else _from_data(repeats, "free_before")
    y = kind_results.median_of(run, kind_results.MAX_PINNABLE)
    y = y if y is not None else _from_data(repeats, "max_pinnable")
    capped = _capped(run, repeats)
    if x is None or y is None or capped is None:
        return None
    ratio = kind_results.median_of(run, kind_results.OVER_HOST_RAM)
    if ratio is None:
        ram = _from_data(repeats, "host_ram_total")
        ratio = y / ram if ram else None
    stops, small = _stops_of(repeats)
    free_target = run.plan.params[FREE_TARGET]
    return Point(
        run_id=run.id,
        api=run.plan.api or "",
        free_target=free_target if isinstance(free_target, (int, str)) else str(free_target),
        free_before=x,
        max_pinnable=y,
        capped=capped,
        over_host_ram=ratio,
        stopped_by=stops,
        small_after_failure=small,
        timed_out=any(r.data.flag("timed_out") is True for r in repeats),
        filler_broken=sum(1 for r in repeats if r.data.flag("filler_intact") is False),
    )


def _stops_of(repeats: Sequence[Repeat]) -> tuple[tuple[str, ...], tuple[bool, ...]]:
    """(the distinct stop errors, per repeat with a failure whether the small pin after it succeeded)."""
    stops: list[str] = []
    small: list[bool] = []
    for r in repeats:
        stop = r.data.text("stopped_by")
        if stop and stop not in stops:
            stops.append(stop)
        after = r.data.part("small_after_failure").flag("ok")
        if after is not None:
            small.append(after)
    return tuple(stops), tuple(small)


def collect_runs(runs: Iterable[Run]) -> dict[str, list[Point]]:
    """api -> its points, by free VRAM (then run id)."""
    out: dict[str, list[Point]] = {}
    for run in runs:
        p = run_point(run)
        if p is not None:
            out.setdefault(p.api, []).append(p)
    return {api: sorted(pts, key=lambda p: (p.free_before, p.run_id)) for api, pts in sorted(out.items())}


# --- the fit and the claim ----------------------------------------------------------------------


def fit_slope(points: Sequence[Point]) -> SlopeFit:
    """Least-squares slope and intercept of max pinnable on free VRAM over the uncapped
    points, and the range of their pairwise slopes (module docstring)."""
    free = [p for p in points if not p.lower_bound]
    if len({p.free_before for p in free}) < 2:
        return SlopeFit(len(free), problem=f"{len(free)} uncapped point(s) with distinct free VRAM, need 2")
    xs = [p.free_before for p in free]
    ys = [p.max_pinnable for p in free]
    from scipy import stats as scipy_stats  # stats.load_libraries()

    fit = scipy_stats.linregress(xs, ys)
    pairwise = [
        (ys[j] - ys[i]) / (xs[j] - xs[i]) for i in range(len(xs)) for j in range(i + 1, len(xs)) if xs[j] != xs[i]
    ]
    return SlopeFit(len(free), float(fit.slope), float(fit.intercept), (min(pairwise), max(pairwise)))


def _within(bound: tuple[float, float], edges: tuple[float, float]) -> bool:
    return edges[0] <= bound[0] and bound[1] <= edges[1]


def _stops_text(stopped_by: Iterable[tuple[str, ...]], small_after: Iterable[tuple[bool, ...]]) -> str:
    stops: list[str] = []
    for s in stopped_by:
        stops.extend(e for e in s if e not in stops)
    small = [ok for s in small_after for ok in s]
    text = f"stopped by {', '.join(stops)}" if stops else "no stop error recorded (every search capped or timed out)"
    if small:
        text += f"; the small pin after a failure succeeded in {sum(small)} of {len(small)} repeat(s)"
    return text


def _stops(points: Sequence[Point]) -> str:
    return _stops_text((p.stopped_by for p in points), (p.small_after_failure for p in points))


def _limit_text(params: Params) -> str:
    limit = as_number(params.get("host_limit"))
    return f"host_limit {format_bytes(limit)}" if limit is not None else "host_limit unknown"


def failure_path_text(runs: Iterable[Run]) -> str:
    """What the ok failure-path runs (enforce_host_limit on; no points) saw, per api; "" for none."""
    by_api: dict[str, list[Run]] = {}
    for run in runs:
        if is_pinnable_run(run) and is_failure_path(run) and run.status == "ok":
            by_api.setdefault(run.plan.api or "", []).append(run)
    parts = []
    for api, of_api in sorted(by_api.items()):
        found = [_stops_of(r.ok_repeats) for r in of_api]
        limits = sorted({_limit_text(r.plan.params) for r in of_api})
        parts.append(f"{api} ({', '.join(limits)}): " + _stops_text((f[0] for f in found), (f[1] for f in found)))
    return "; ".join(parts)


def judge_points(points: Sequence[Point]) -> Judgement:
    """The claim for one api's points (module docstring)."""
    if not points:
        return Judgement(Outcome.NOT_TESTED, "no max_pinnable run with free_target")
    fit = fit_slope(points)
    shown = ", ".join(p.describe() for p in points) + f"; {fit.describe()}; {_stops(points)}"
    least = min(points, key=lambda p: p.free_before)
    reach = REFUTE_FACTOR * least.free_before + REFUTE_INTERCEPT
    if least.max_pinnable >= reach:
        pinned = ("at least " if least.lower_bound else "") + format_bytes(least.max_pinnable)
        return Judgement(
            Outcome.REFUTED,
            f"with {format_bytes(least.free_before)} free it pinned {pinned}, beyond "
            f"{REFUTE_FACTOR:g} x free + {format_bytes(REFUTE_INTERCEPT)} = {format_bytes(reach)}: {shown}",
        )
    if fit.bound is None:
        return Judgement(Outcome.AMBIGUOUS, f"{fit.problem}: {shown}")
    if _within(fit.bound, FLAT):
        return Judgement(Outcome.REFUTED, f"flat: the slope bound lies within [{FLAT[0]:g}, {FLAT[1]:g}]: {shown}")
    if _within(fit.bound, NEAR_ONE):
        return Judgement(Outcome.CONFIRMED, f"the slope bound lies within [{NEAR_ONE[0]:g}, {NEAR_ONE[1]:g}]: {shown}")
    return Judgement(
        Outcome.AMBIGUOUS,
        f"the slope bound is not within [{NEAR_ONE[0]:g}, {NEAR_ONE[1]:g}] nor [{FLAT[0]:g}, {FLAT[1]:g}]: {shown}",
    )


def platform(env: Environment) -> str:
    """ "windows, WDDM": the file's platform and its devices' driver models ("linux" once, where
    the driver model is the platform's name)."""
    where = env.platform or "unknown platform"
    models = sorted(set(env.driver_models) - {where}) or ([] if where == "linux" else ["unknown driver model"])
    return ", ".join([where, *models])


def judge(runs: Sequence[Run], by_api: dict[str, list[Point]] | None = None) -> Judgement:
    """The claim for a results file's runs (one platform and driver model): module docstring.
    `by_api` is collect_runs(runs) when the caller has it already."""
    by_api = collect_runs(runs) if by_api is None else by_api
    if not by_api:
        return Judgement(
            Outcome.NOT_TESTED, "no ok max_pinnable run with free_target here (older files search without a fill)"
        )
    judged = {api: judge_points(pts) for api, pts in by_api.items()}
    evidence = "; ".join(f"{api}: {j.outcome}, {j.evidence}" for api, j in judged.items())
    used = sum(len(pts) for pts in by_api.values())
    failure_path = failure_path_text(runs)
    left_out = sum(1 for r in runs if is_pinnable_run(r) and not is_failure_path(r)) - used
    if left_out:
        evidence += f"; {left_out} other run(s) with free_target not ok, disturbed or without free_before: no point"
    if failure_path:
        evidence += f"; failure path (enforce_host_limit on: bounded by host_limit, not a point): {failure_path}"
    outcomes = {j.outcome for j in judged.values()}
    for outcome in (Outcome.REFUTED, Outcome.CONFIRMED):
        if outcome in outcomes:
            return Judgement(outcome, evidence)
    return Judgement(Outcome.AMBIGUOUS, evidence)


def windows_cap(points: Sequence[Point]) -> WindowsCap | None:
    """Max pinnable over host RAM at the point with the most free VRAM; None without points or
    when that point's host RAM is not recorded."""
    if not points:
        return None
    most = max(points, key=lambda p: p.free_before)
    if most.over_host_ram is None:
        return None
    return WindowsCap(most.api, most.over_host_ram, most.lower_bound, most)


def windows_caps(by_api: dict[str, list[Point]]) -> list[WindowsCap]:
    """windows_cap() per api of collect()'s points."""
    caps = (windows_cap(pts) for pts in by_api.values())
    return [c for c in caps if c is not None]
