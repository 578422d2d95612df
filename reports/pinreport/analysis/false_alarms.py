"""The A/A check of the verdict rules on real nights (`pinreport aa NIGHT.json ...`).

Nights of one machine and one driver release, each from a fresh start of the machine, differ
only by noise. Each night is judged against the others (leave one out) as its release's history,
exactly as `compare` would judge it, and three things are counted:
  - false alarms: REGRESSION or IMPROVEMENT on any metric (none is expected);
  - how many time-like metrics (unit ms or ratio) were judged (SAME, REGRESSION, IMPROVEMENT)
    rather than left AMBIGUOUS (too few nights or repeats) or without a baseline;
  - detection of injected shifts, made in memory on a copy of the night (never written to a
    file, never a measurement): every judged time metric moved in its worse direction by
    3 x its night-to-night spread R (R from the other nights; metrics with R = 0 are not
    injected), and every held cost (cost.after_alloc / cost.after_first_use of a probe key)
    raised by one granule. A shift moves the metric's per-repeat samples (what compare judges)
    and its summary alike.
"""

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from pinreport.analysis.compare import HISTORY, CompareOptions, CompareReport, MetricVerdict, compare, higher_is_worse
from pinreport.analysis.stats import Verdict, floor_distance
from pinreport.base.errors import BadInputError
from pinreport.base.probe_keys import describe_key, split_metric
from pinreport.readers.results import ResultsFile
from pinreport.store.files import REAL, StoreEntry
from pinreport.store.reading import StoreContents

TIME_UNITS = ("ms", "ratio")
JUDGED = (Verdict.SAME, Verdict.REGRESSION, Verdict.IMPROVEMENT)
TIME_SHIFT_SPREADS = 3.0
_HELD = ("cost.after_alloc.", "cost.after_first_use.")


@dataclass
class NightResult:
    path: str
    false_alarms: list[str] = field(default_factory=list)  # "run metric VERDICT"
    time_verdicts: Counter = field(default_factory=Counter)  # verdict -> count (time-like metrics)
    time_injected: int = 0
    time_detected: int = 0
    time_under_floor: int = 0  # injected shifts of 3 R that are not over the time floor
    time_not_injected: int = 0  # judged, but R = 0 (nothing to scale)
    bytes_injected: int = 0
    bytes_detected: int = 0
    bytes_missed: list[str] = field(default_factory=list)

    @property
    def time_judged(self) -> int:
        return sum(self.time_verdicts[v] for v in JUDGED)

    @property
    def time_total(self) -> int:
        return sum(self.time_verdicts.values())


def _history_store(nights: Sequence[ResultsFile], skip: int) -> StoreContents:
    entries = [StoreEntry(n.path, REAL, n, n.environment.key) for i, n in enumerate(nights) if i != skip]
    entries.sort(key=lambda e: (e.started_at, e.path))
    return StoreContents(root="(A/A: the other nights)", entries=entries)


def _history(report: CompareReport) -> dict[tuple[str, str], MetricVerdict]:
    return {(v.run_id, v.metric): v for v in report.verdicts if v.kind == HISTORY}


def _held_shifts(night: ResultsFile) -> dict[tuple[str, str], float]:
    """One granule up for every held cost of every ok run (both held stages of a probe key, by
    the key's largest granule), where the key is one whose cost goes up or down."""
    shifts: dict[tuple[str, str], float] = {}
    for run in night.runs:
        if run.status != "ok":
            continue
        keys: dict[str, int] = {}
        for name in run.metrics:
            parts = split_metric(name)
            if parts is None or not name.startswith(_HELD):
                continue
            g = run.metrics[name].granule
            if g is None or g <= 0 or describe_key(parts[1]).direction not in ("usage", "available"):
                continue
            keys[parts[1]] = max(keys.get(parts[1], 0), g)
        for key, g in keys.items():
            for prefix in _HELD:
                if prefix + key in run.metrics:
                    shifts[(run.id, prefix + key)] = float(g)
    return shifts


def check_night(nights: Sequence[ResultsFile], i: int, options: CompareOptions) -> NightResult:
    night = nights[i]
    store = _history_store(nights, i)
    out = NightResult(night.path)
    base = _history(compare(night, store, options))
    shifts: dict[tuple[str, str], float] = {}
    for (run_id, metric), v in sorted(base.items()):
        if v.verdict in (Verdict.REGRESSION, Verdict.IMPROVEMENT):
            out.false_alarms.append(f"{run_id} {metric} {v.verdict}: {v.comparison.reason}")
        if v.unit not in TIME_UNITS:
            continue
        out.time_verdicts[str(v.verdict)] += 1
        c = v.comparison
        if v.verdict not in JUDGED or c.night_spread is None or c.baseline_median is None:
            continue
        if c.night_spread <= 0:
            out.time_not_injected += 1
            continue
        shift = TIME_SHIFT_SPREADS * c.night_spread * (1 if higher_is_worse(metric) else -1)
        shifts[(run_id, metric)] = shift
    if shifts:
        moved_night = night.with_shifted_metrics(shifts, night.path + " (shifted in memory)")
        shifted = _history(compare(moved_night, store, options))
        floor = max(options.floor, options.time_floor)
        for key, shift in shifts.items():
            out.time_injected += 1
            base_v = base[key]
            if shifted[key].verdict == Verdict.REGRESSION:
                out.time_detected += 1
            elif abs(shift) <= floor_distance(base_v.comparison.baseline_median, floor, shift > 0):
                out.time_under_floor += 1
    held = _held_shifts(night)
    moved = list(held)
    if moved:
        shifted = _history(
            compare(night.with_shifted_metrics(held, night.path + " (shifted in memory)"), store, options)
        )
        for key in moved:
            if key not in shifted or key not in base or base[key].verdict == Verdict.NO_BASELINE:
                continue
            out.bytes_injected += 1
            if shifted[key].verdict == Verdict.REGRESSION:
                out.bytes_detected += 1
            else:
                out.bytes_missed.append(f"{key[0]} {key[1]}: {shifted[key].comparison.reason}")
    return out


def check(nights: Sequence[ResultsFile], options: CompareOptions) -> list[NightResult]:
    """Every night against the others; BadInputError when they are not of one machine and release."""
    if len(nights) < 2:
        raise BadInputError(nights[0].path if nights else "(none)", "the A/A check needs two nights or more")
    first = nights[0]
    group = first.environment.key
    for n in nights:
        key = n.environment.key
        if key != group:
            raise BadInputError(n.path, f"not the machine and release of {first.path} ({key} vs {group})")
        if n.replayed:
            raise BadInputError(n.path, "replayed data is never a night of an A/A check")
        if n.environment.release is None:
            raise BadInputError(n.path, "no driver release recorded")
    return [check_night(nights, i, options) for i in range(len(nights))]
