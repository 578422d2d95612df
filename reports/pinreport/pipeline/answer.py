"""The answer first: what pinning costs on this machine and driver, what the reservation rule
says, what to reserve, what changed since the previous driver release, and what went wrong.

build_answer() gathers it from what the other modules compute, and computes nothing of its own:
the cost fit and the reserve (fit.py, the `reserve` command's), the rule's verdicts and the
comparison with the previous release (compare.py, `compare`'s), the brief's claims (claims/,
handed in by the report pipeline, pipeline/report.py, which calls it). `pinreport summary` prints it
(console.py), writes it as Markdown (markdown.py), and the HTML report opens with it
(templates/report.html.j2).

A headline (a cost per pinned GiB, a reserve) comes only from ok runs that no other process
disturbed (disturbance.py): a run with any disturbed metric is left out of the fit, and named.
A replayed file gives no headline at all: its rows are kept apart (`replayed_rows`), and every
formatter labels them REPLAYED.
"""

from collections import Counter
from dataclasses import dataclass, field

from pinreport.analysis.compare import HISTORY, PREVIOUS, CompareReport, MetricVerdict
from pinreport.analysis.disturbance import disturbed_metrics
from pinreport.analysis.environment_changes import EnvironmentChange
from pinreport.analysis.fit import CostFit, FitKey, fit_all, recommend
from pinreport.analysis.rule import CONTROL_API, RULE_KINDS, RuleVerdict
from pinreport.analysis.stats import TOO_FEW_NIGHTS, Verdict
from pinreport.base.units import format_bytes
from pinreport.claims.claim import ClaimRow
from pinreport.readers.budget import BudgetDocument, FamilyBudget
from pinreport.readers.results import ResultsFile
from pinreport.readers.runs import Run
from pinreport.readers.store_key import StoreKey

GiB = 1024**3
RESERVE_SIZES = (1 * GiB, 4 * GiB, 16 * GiB)  # the sizes a headline recommends a reserve for
TOP_CHANGES = 5  # changed metrics named one by one; the rest are counted

# The rule's verdicts, most severe first: a row's verdict is the most severe of its runs'.
_RULE_ORDER = (RuleVerdict.VIOLATION, RuleVerdict.AMBIGUOUS, RuleVerdict.OK, RuleVerdict.OVER_RESERVED)


@dataclass(frozen=True)
class Reserve:
    size: int  # pinned bytes
    per_gpu: float  # bytes to reserve on each GPU (the fit's prediction bound at size)
    notes: tuple[str, ...]


@dataclass(frozen=True)
class CostRow:
    """One API on one GPU count: the fit of its probe that asks for the most, and its rule verdict."""

    api: str
    gpus: int
    family: str  # probe family ("cuda.free", "nvml.*.used", ...)
    fit: CostFit
    runs: int  # ok, undisturbed runs of this api and GPU count in the fit
    reserves: tuple[Reserve, ...]
    rule: str  # the most severe judged verdict, "" when none was judged
    rule_counts: tuple[tuple[str, int], ...]  # verdict -> runs x probes, most severe first
    ratio_range: tuple[float, float] | None  # judged cost / pinned, lowest and highest

    @property
    def per_gib(self) -> float:
        """Fitted cost of one more pinned GiB (the slope); 0 below resolution."""
        return 0.0 if self.fit.below_resolution else self.fit.slope * GiB


@dataclass(frozen=True)
class Changes:
    """What changed since the previous driver release in the store."""

    state: str  # NO_STORE, FIRST_NIGHT, NO_EARLIER_RELEASE or COMPARED
    release: str | None  # the previous release compared with
    counts: tuple[tuple[str, int], ...]  # verdict -> metrics, against the previous release
    named: tuple[MetricVerdict, ...]  # the first TOP_CHANGES regressions, then improvements
    environment: tuple[EnvironmentChange, ...]  # what else changed besides the driver
    few_nights: int = 0  # of the AMBIGUOUS, those only for too few stored nights (stats.py)


NO_STORE, FIRST_NIGHT, NO_EARLIER_RELEASE, COMPARED = "no store", "first night", "no earlier release", "compared"


@dataclass(frozen=True)
class Answer:
    path: str
    replayed: bool
    key: StoreKey
    driver_models: tuple[str, ...]
    band: str
    rows: tuple[CostRow, ...]  # every row; a headline only when not replayed (headlines)
    changes: Changes
    claims: tuple[ClaimRow, ...]  # the 14 claims under test (claims/register.py rows)
    left_out: tuple[str, ...]  # runs kept out of the headline (disturbed), with why
    problems: tuple[str, ...]  # failed, timed-out, interrupted, bad input, failed controls
    waived: tuple[str, ...]  # one line per reason: "N run(s): reason (e.g. run id)"
    disturbed: tuple[str, ...]  # one line per disturbed run
    exit_code: int
    reserve_sizes: tuple[int, ...] = field(default=RESERVE_SIZES)
    budget: str | None = None  # budget_line() of a `pinbench budget` document, when one was given

    @property
    def headlines(self) -> tuple[CostRow, ...]:
        """Rows a reader may take as measured numbers: none from a replayed file."""
        return () if self.replayed else self.rows

    @property
    def replayed_rows(self) -> tuple[CostRow, ...]:
        return self.rows if self.replayed else ()

    def claim_counts(self) -> tuple[tuple[str, int], ...]:
        return tuple(sorted(Counter(c.verdict for c in self.claims).items()))


def _clean_runs(current: ResultsFile) -> tuple[list[Run], list[str]]:
    """The ok runs no other process disturbed, and the runs left out."""
    kept, left_out = [], []
    for run in current.runs:
        if run.status != "ok":
            continue
        bad = disturbed_metrics(run)
        if bad:
            left_out.append(f"{run.id}: {len(bad)} disturbed metric(s), left out of the fit")
            continue
        kept.append(run)
    return kept, left_out


def _rule_of(report: CompareReport, api: str, run_ids: set[str]) -> tuple[str, tuple, tuple | None]:
    judged = [r for r in report.rule if r.api == api and r.run_id in run_ids and r.judged]
    counts = Counter(r.verdict for r in judged)
    ordered = tuple((str(v), counts[v]) for v in _RULE_ORDER if counts[v])
    worst = ordered[0][0] if ordered else ""
    ratios = [float(r.ratio) for r in judged]
    return worst, ordered, (min(ratios), max(ratios)) if ratios else None


def _rows(runs: list[Run], key: StoreKey, report: CompareReport) -> tuple[CostRow, ...]:
    fits: dict[FitKey, CostFit] = fit_all([(key, runs)])
    releases = {key.group: key.release}
    rows = []
    for gpus in sorted({k.gpus for k in fits}):
        at = {size: {r.api: r for r in recommend(fits, size, gpus, releases)} for size in RESERVE_SIZES}
        for api, rec in sorted(at[RESERVE_SIZES[-1]].items()):
            ids = {r.id for r in runs if r.plan.api == api and r.plan.gpu_count == gpus and api != CONTROL_API}
            fit_runs = {r.id for r in runs if r.id in ids and r.plan.kind in RULE_KINDS}
            reserves = tuple(Reserve(s, at[s][api].per_gpu, at[s][api].notes) for s in RESERVE_SIZES if api in at[s])
            worst, counts, ratios = _rule_of(report, api, ids)
            rows.append(CostRow(api, gpus, rec.family, rec.fit, len(fit_runs), reserves, worst, counts, ratios))
    return tuple(rows)


def _changes(report: CompareReport, stored: bool) -> Changes:
    if not stored:
        return Changes(NO_STORE, None, (), (), ())
    previous = report.baselines.get(PREVIOUS)
    if previous is None or not previous.found:
        history = report.baselines.get(HISTORY)
        state = NO_EARLIER_RELEASE if history is not None and history.found else FIRST_NIGHT
        return Changes(state, None, (), (), ())
    mine = [v for v in report.verdicts if v.kind == PREVIOUS]
    counts = tuple(sorted(Counter(str(v.verdict) for v in mine).items()))
    named = [v for v in mine if v.verdict == Verdict.REGRESSION] + [v for v in mine if v.verdict == Verdict.IMPROVEMENT]
    few = sum(v.verdict == Verdict.AMBIGUOUS and TOO_FEW_NIGHTS in v.comparison.reason for v in mine)
    return Changes(COMPARED, previous.release, counts, tuple(named[:TOP_CHANGES]), previous.changes, few)


_FAILURE_WORDS = {
    "clean": "a failure is clean",
    "poisons": "a failure POISONS the process",
    "not_seen": "no failure seen",
}


def _family_budget_text(f: FamilyBudget) -> str:
    if f.status != "ok" or f.safe_budget is None:
        return f"{f.family} no answer ({f.status})"
    size = format_bytes(f.safe_budget)
    budget = size if f.limit_found else f"at least {size} ({f.stopped_words or f.stopped_by})"
    parts = [_FAILURE_WORDS.get(f.failure or "", f.failure or "failure unknown")]
    if f.silent_fallback:
        parts.append("SILENT FALLBACK seen")
    parts.append(f"pin {f.pin_s_per_gib:.3g} s/GiB" if f.pin_s_per_gib is not None else "pin speed not measured")
    if f.vram_disturbed:
        parts.append("VRAM not measured: disturbed")
    elif f.vram_cost_at_budget is not None:
        parts.append(f"VRAM it costs {format_bytes(f.vram_cost_at_budget)}")
    else:
        parts.append("VRAM not measured")
    return f"{f.family} {budget}, " + ", ".join(parts)


def budget_line(b: BudgetDocument) -> str:
    """The budget in one line (docs/budget.md, "The answer"): the safe budget per family ("at
    least" where the cap, time or host stopped it), clean/poisons, pin speed, the VRAM it costs."""
    incomplete = "" if b.complete else " (INCOMPLETE document)"
    families = "; ".join(_family_budget_text(f) for f in b.families) or "no family measured"
    return f"Pin budget ({b.machine}){incomplete}: {families}"


def build_answer(
    current: ResultsFile,
    report: CompareReport,
    stored: bool,
    claims: tuple[ClaimRow, ...],
    budget: BudgetDocument | None = None,
) -> Answer:
    """The answer for one results file, its comparison and the brief's claims on it (`stored`: a
    store was given; `budget`: a `pinbench budget` document to give in one line). The report
    pipeline (pipeline/report.py) calls it, once."""
    key = current.environment.key
    clean, left_out = _clean_runs(current)
    by_reason: dict[str, list[str]] = {}
    for r in current.runs:
        if r.status == "waived":
            by_reason.setdefault(r.reason or "no reason given", []).append(r.id)
    waived = tuple(
        f"{ids[0]}: {why}" if len(ids) == 1 else f"{len(ids)} runs: {why} (e.g. {ids[0]})"
        for why, ids in by_reason.items()
    )
    problems = tuple(report.infrastructure) + tuple(str(p) for p in report.bad_input)
    return Answer(
        path=current.path,
        replayed=report.replayed,
        key=key,
        driver_models=tuple(sorted(set(current.environment.driver_models))),
        band=str(report.options.band),
        rows=_rows(clean, key, report),
        changes=_changes(report, stored),
        claims=claims,
        left_out=tuple(left_out),
        budget=budget_line(budget) if budget is not None else None,
        problems=problems,
        waived=waived,
        disturbed=tuple(d.describe() for d in report.disturbed),
        exit_code=report.exit_code(),
    )
