"""The driver table's rules (docs/drivers.md): which release a release is judged against, how the
comparison of two releases becomes one verdict, and which claims changed. Pure functions of typed
values; the table itself is built by pipeline/drivers.py.

A release is judged against the previous release of the same machine group: the highest real
release older than it that holds a night (replayed nights are never a baseline, compare.py). Its
verdict is decided by its worst comparison, the budget's and the VRAM cost metrics' alike:
  REGRESSION   a budget that shrank at the driver's limit, or a cost metric that rose
               (budget_compare.py, compare.py: one granule, every sample beyond the baseline's)
  IMPROVEMENT  none of those, and a budget that grew or a cost that fell
  AMBIGUOUS    none of those, and a metric whose medians moved with overlapping samples, or too
               few samples to tell
  SAME         every judged metric and budget the same
  NO-BASELINE  nothing to judge against (the group's first release, or nothing in common)
The metric that decided it is named: the largest relative change of that verdict.
"""

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from pinreport.analysis.budget_compare import BudgetVerdict
from pinreport.analysis.compare import PREVIOUS, MetricVerdict
from pinreport.analysis.stats import Verdict
from pinreport.base.units import format_bytes, format_delta, format_value
from pinreport.base.versions import is_release, release_key

NO_BASELINE = str(Verdict.NO_BASELINE)
# The verdicts a release can get, most severe first.
ORDER = (str(Verdict.REGRESSION), str(Verdict.IMPROVEMENT), str(Verdict.AMBIGUOUS), str(Verdict.SAME), NO_BASELINE)


def newest_first(releases: Iterable[str]) -> list[str]:
    """Releases newest first: numbered ones by their numbers (versions.py), then the others."""
    releases = set(releases)
    numbered = sorted((r for r in releases if is_release(r)), key=release_key, reverse=True)
    return numbered + sorted((r for r in releases if not is_release(r)), reverse=True)


def baseline_release(release: str, real_releases: Iterable[str]) -> str | None:
    """The release `release` is judged against: the highest real release strictly older, or None
    (an unnumbered release has no order, so no baseline)."""
    if not is_release(release):
        return None
    key = release_key(release)
    older = [r for r in set(real_releases) if is_release(r) and release_key(r) < key]
    return max(older, key=release_key) if older else None


@dataclass(frozen=True)
class Decider:
    """One comparison that can decide a release's verdict: a metric of the newest night or a
    budget family."""

    verdict: str
    what: str  # "cost.after_first_use.cuda.free of q/cudaMallocHost/4GiB" or "safe budget cudaHostRegister"
    change: str  # "+8.00 MiB (2.00 GiB -> 2.01 GiB)" or the reason
    size: float  # how large the change is, relative (to pick the one that decided)


@dataclass(frozen=True)
class ReleaseVerdict:
    verdict: str  # one of ORDER
    against: str | None  # the release judged against
    decided_by: Decider | None
    counts: tuple[tuple[str, int], ...]  # verdict -> how many metrics and budget families, in ORDER

    def describe(self) -> str:
        if self.decided_by is None:
            return self.verdict if self.against is None else f"{self.verdict} vs {self.against}"
        d = self.decided_by
        return f"{self.verdict} vs {self.against}: {d.what} {d.change}"


def _metric_decider(v: MetricVerdict) -> Decider:
    c = v.comparison
    what = f"{v.metric} of {v.run_id}"
    if c.delta is None or c.baseline_median is None or v.verdict == Verdict.AMBIGUOUS:
        size = abs(c.delta) / abs(c.baseline_median) if c.delta and c.baseline_median else 0.0
        return Decider(str(v.verdict), what, f"({c.reason})", size)
    sign = "+" if c.delta > 0 and v.unit == "bytes" else ""
    moved = f"{sign}{format_delta(c.delta, v.unit)}"
    change = f"{moved} ({format_value(c.baseline_median, v.unit)} -> {format_value(c.current_median, v.unit)})"
    size = abs(c.delta) / abs(c.baseline_median) if c.baseline_median else float("inf")
    return Decider(str(v.verdict), what, change, size)


def _budget_decider(b: BudgetVerdict) -> Decider:
    what = f"safe budget {b.family}"
    if b.old is None or b.new is None:
        return Decider(b.verdict, what, b.why, 0.0)
    change = f"{format_bytes(b.old)} -> {format_bytes(b.new)} ({b.why})"
    return Decider(b.verdict, what, change, abs(b.new - b.old) / b.old if b.old else float("inf"))


def release_verdict(
    against: str | None, metrics: Sequence[MetricVerdict], budgets: Sequence[BudgetVerdict]
) -> ReleaseVerdict:
    """One verdict from the newest night's comparisons with the previous release (PREVIOUS only;
    NOT JUDGED and NO-BASELINE metrics decide nothing) and the budgets' (NOT COMPARABLE decides
    nothing): the most severe verdict in ORDER, decided by its largest relative change."""
    deciders = [_metric_decider(v) for v in metrics if v.kind == PREVIOUS and str(v.verdict) in ORDER[:4]]
    deciders += [_budget_decider(b) for b in budgets if b.verdict in ORDER[:4]]
    counts = tuple((v, n) for v in ORDER[:4] if (n := sum(d.verdict == v for d in deciders)))
    if against is None or not deciders:
        return ReleaseVerdict(NO_BASELINE, against, None, counts)
    worst = min(ORDER.index(d.verdict) for d in deciders)
    chosen = max((d for d in deciders if ORDER.index(d.verdict) == worst), key=lambda d: d.size)
    return ReleaseVerdict(ORDER[worst], against, chosen if chosen.verdict != ORDER[3] else None, counts)


@dataclass(frozen=True)
class ClaimChange:
    n: str
    old: str
    new: str


def changed_claims(old: Sequence[tuple[str, str]], new: Sequence[tuple[str, str]]) -> tuple[ClaimChange, ...]:
    """The claims whose verdict differs between two nights' answers, in the register's order."""
    before = dict(old)
    return tuple(ClaimChange(n, before[n], v) for n, v in new if n in before and before[n] != v)
