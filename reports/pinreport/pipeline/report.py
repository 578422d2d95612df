"""The report pipeline: one results file and its store in, one Report value out, computed at once.

Every command that judges a results file calls one function here, once: `compare` compare_report(),
`summary` summary_report(), `html` run_pipeline(). Each computes, eagerly, what its outputs show and
nothing more (analysis/, claims/, pipeline/answer.py, pipeline/views.py), and the outputs
(formats/: console, JUnit, Markdown; render/: HTML) only read the Report they are handed. As
google/benchmark's reporters read one `Run`:

    load (readers/) -> store (store/) -> compare_report | summary_report | run_pipeline -> Report
        -> formats/, render/

`compare` pays for no fit and no claim; `summary` for the answer (its fits, its claims);
`html` for all of it: the page's cost fits, the claims, the answer, the store's nights for the
history charts, the benchmark rows and every chart's points.

Two pairs look alike and differ on purpose, as they always have: the page's fits take every
run (the rule's charts, the reserve table), the answer's take only the runs no other process
disturbed (answer.py); the page's claims see the `--bench` rows, the answer's claims do not (the
answer is the same with or without benchmark files), so with no benchmark file they are one.
"""

from dataclasses import dataclass

from pinreport.analysis.compare import HISTORY, PREVIOUS, Baseline, CompareOptions, CompareReport, compare
from pinreport.analysis.fit import CostFit, FitKey, fit_all
from pinreport.analysis.history import latest_per_release, nights
from pinreport.claims.claim import ClaimRow
from pinreport.claims.evidence import ClaimData
from pinreport.claims.register import brief_rows, further_rows
from pinreport.pipeline.answer import Answer, build_answer
from pinreport.pipeline.views import (
    CostView,
    KindView,
    NightsView,
    ReserveRow,
    RuleView,
    cost_views,
    kind_views,
    kinds_not_measured,
    nights_view,
    reserve_rows,
    rule_views,
)
from pinreport.readers.bench_rows import BenchRows, read_bench
from pinreport.readers.budget import BudgetDocument
from pinreport.readers.results import ResultsFile
from pinreport.readers.store_key import StoreKey
from pinreport.store.files import no_cyclic_gc
from pinreport.store.reading import StoreContents


@dataclass(frozen=True)
class Report:
    """What pinreport concludes about one results file (`compare`'s): read by every output,
    changed by none."""

    current: ResultsFile
    store: StoreContents
    compared: CompareReport  # the verdicts, the rule, the expectations, what went wrong
    stored: bool  # a store was given (`summary` without --store: nothing to compare with)
    exit_code: int

    @property
    def key(self) -> StoreKey:
        """Where the current file is filed: its machine, GPU and driver release."""
        return self.current.environment.key

    @property
    def baseline(self) -> Baseline | None:
        """The baseline the page describes: the previous release's, else the history's."""
        baseline = self.compared.baselines.get(PREVIOUS)
        if baseline is None or not baseline.found:
            baseline = self.compared.baselines.get(HISTORY)
        return baseline


@dataclass(frozen=True)
class SummaryReport(Report):
    """`summary`'s: the Report and the answer of its first screen."""

    answer: Answer


@dataclass(frozen=True)
class PageReport(SummaryReport):
    """`html`'s: everything the page shows, computed once."""

    bench: BenchRows
    claims: tuple[ClaimRow, ...]  # the 14 claims under test (claims/register.py rows)
    further_claims: tuple[ClaimRow, ...]  # the claims beyond them
    fits: dict[FitKey, CostFit]  # the cost fits of every run of the current file
    kinds: tuple[KindView, ...]  # the scenario kinds present: tables and chart data
    kinds_not_measured: tuple[tuple[str, str], ...]  # (title, kind) of the kinds with no run here
    costs: tuple[CostView, ...]  # held cost against size, the latest night of each release
    nights: NightsView  # the store's nights of the group, then the current file
    rules: tuple[RuleView, ...]  # the rule's ratios and the fit lines, per scenario
    reserve: tuple[ReserveRow, ...]  # the reserve per api at views.RESERVE_SIZES


def _compared(current: ResultsFile, store: StoreContents, options: CompareOptions | None) -> CompareReport:
    # The comparison reads the typed values of every night's runs it judges (about 10^5 small
    # objects for a release of nights, no cycle among them): the cycle collector's passes over
    # them cost more than the comparison itself, as they did over the parse (no_cyclic_gc).
    with no_cyclic_gc():
        return compare(current, store, options)


def compare_report(
    current: ResultsFile, store: StoreContents, options: CompareOptions | None = None, stored: bool = True
) -> Report:
    """`compare`'s Report: the verdicts alone."""
    compared = _compared(current, store, options)
    return Report(current, store, compared, stored, compared.exit_code())


def _answer(
    current: ResultsFile, compared: CompareReport, stored: bool, budget: BudgetDocument | None, claims=None
) -> Answer:
    """The answer of the first screen (answer.py); its claims without the benchmark rows."""
    if claims is None:
        claims = tuple(brief_rows(ClaimData(current, tuple(compared.rule), BenchRows())))
    return build_answer(current, compared, stored, claims, budget=budget)


def summary_report(
    current: ResultsFile,
    store: StoreContents,
    options: CompareOptions | None = None,
    budget: BudgetDocument | None = None,
    stored: bool = True,
) -> SummaryReport:
    """`summary`'s Report: the verdicts and the answer."""
    compared = _compared(current, store, options)
    return SummaryReport(
        current, store, compared, stored, compared.exit_code(), _answer(current, compared, stored, budget)
    )


def run_pipeline(
    current: ResultsFile,
    store: StoreContents,
    bench_paths: list[str] | tuple[str, ...] | None = None,
    options: CompareOptions | None = None,
    budget: BudgetDocument | None = None,
    stored: bool = True,
) -> PageReport:
    """`html`'s Report: every value the page shows, computed once (module docstring)."""
    compared = _compared(current, store, options)
    bench = read_bench(list(bench_paths or ()))
    data = ClaimData(current, tuple(compared.rule), bench)
    claims = tuple(brief_rows(data))
    # The answer's claims are the page's when no benchmark file was given (module docstring).
    answer = _answer(current, compared, stored, budget, claims if bench == BenchRows() else None)
    fits = fit_all([(current.environment.key, current.runs)])
    all_nights = nights(current, store)
    return PageReport(
        current=current,
        store=store,
        compared=compared,
        stored=stored,
        exit_code=compared.exit_code(),
        answer=answer,
        bench=bench,
        claims=claims,
        further_claims=tuple(further_rows(data)),
        fits=fits,
        kinds=kind_views(current.runs),
        kinds_not_measured=kinds_not_measured(current.runs),
        costs=cost_views(latest_per_release(all_nights, current)),
        nights=nights_view(all_nights),
        rules=rule_views(compared.rule, fits),
        reserve=reserve_rows(fits, current.environment.key),
    )
